import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../../analyzer/index.js';
import { capLabel, metricFamilies, type MetricFamily } from '../../../analyzer/metrics/metric-families.js';

/** The report as metric families: every figure, in base units, by group; tools and models capped. */
const golden = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
let report: LeakReport;
let families: Map<string, MetricFamily>;
beforeAll(async () => {
  report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:' });
  families = new Map(metricFamilies(report).map((f) => [f.name, f]));
});
afterAll(() => undefined);

const sum = (f: MetricFamily | undefined, where: (labels: Record<string, string>) => boolean = () => true): number =>
  (f?.samples ?? []).filter((s) => where(s.labels)).reduce((n, s) => n + s.value, 0);

describe('metric families of a report', () => {
  it('names follow Prometheus conventions: afterstop_ prefix, base units, no _total on these gauges, one name each', () => {
    const names = [...families.keys()];
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^afterstop_[a-z_]+$/);
      expect(name).not.toMatch(/_total$|_ms$|_milliseconds$/);
    }
    expect(names).toEqual(expect.arrayContaining(['afterstop_cancel_ack_seconds', 'afterstop_ghost_tax_usd', 'afterstop_ghost_tax_by_model_usd']));
  });

  it('every per-group figure sums to the report total (runs, ghosts, orphans, tokens, depth)', () => {
    const t = report.totals;
    expect(sum(families.get('afterstop_runs'))).toBe(t.runs);
    expect(sum(families.get('afterstop_cancelled_runs'))).toBe(t.cancelled_runs);
    expect(sum(families.get('afterstop_ghost_commits'))).toBe(t.ghost_commits);
    expect(sum(families.get('afterstop_orphan_tool_calls'))).toBe(t.orphan_tool_calls);
    expect(sum(families.get('afterstop_replay_duplicates'))).toBe(t.replay_duplicates);
    expect(sum(families.get('afterstop_tokens_after_stop'), (l) => l['direction'] === 'output')).toBe(t.tokens_after_stop.output);
    expect(sum(families.get('afterstop_ghost_tax_usd'))).toBeCloseTo(t.ghost_tax_usd, 9);
    expect(sum(families.get('afterstop_post_cancel_errors'), (l) => l['cause'] === 'orphan_tool_call_rejected')).toBe(t.post_cancel_errors.orphan_tool_call_rejected);
    for (const depth of ['0', '1', '2', '3', '4'] as const) expect(sum(families.get('afterstop_cancel_depth_runs'), (l) => l['depth'] === depth)).toBe(t.cancel_depth[depth]);
    expect(sum(families.get('afterstop_ghost_commits_by_tool'))).toBe(t.ghost_commits);
    expect(sum(families.get('afterstop_tokens_after_stop_by_model'), (l) => l['direction'] === 'input')).toBe(t.tokens_after_stop.input);
  });

  it('latencies in seconds by statistic, beside their count', () => {
    const g = report.groups.find((x) => x.cancel_ack_ms.count > 0)!;
    const labels = { service: g.service ?? '', agent: g.agent ?? '', framework: g.framework ?? '' };
    const p95 = families.get('afterstop_cancel_ack_seconds')!.samples.find((s) => s.labels['service'] === labels.service && s.labels['stat'] === 'p95');
    expect(p95?.value).toBeCloseTo(g.cancel_ack_ms.p95! / 1000, 12);
    expect(families.get('afterstop_cancel_ack_observations')!.samples.find((s) => s.labels['service'] === labels.service)?.value).toBe(g.cancel_ack_ms.count);
  });

  it('tools and models beyond the cap are summed as other', () => {
    const rows = [{ k: 'a', v: 5 }, { k: 'b', v: 1 }, { k: 'c', v: 3 }, { k: 'a', v: 1 }];
    const { kept, other } = capLabel(rows, (r) => r.k, (r) => r.v, 2);
    expect(kept.map((r) => r.k)).toEqual(['a', 'c', 'a']);
    expect(other.map((r) => r.k)).toEqual(['b']);
    const capped = metricFamilies(report, { maxLabelValues: 0 });
    const byModel = capped.find((f) => f.name === 'afterstop_tokens_after_stop_by_model')!;
    expect(new Set(byModel.samples.map((s) => s.labels['model']))).toEqual(new Set(report.totals.tokens_after_stop_by_model.length > 0 ? ['other'] : []));
    expect(sum(byModel, (l) => l['direction'] === 'output')).toBe(report.totals.tokens_after_stop.output);
  });
});
