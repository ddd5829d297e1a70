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
    expect(sum(families.get('afterstop_after_stop_tokens'), (l) => l['direction'] === 'output')).toBe(t.tokens_after_stop.output);
    expect(sum(families.get('afterstop_ghost_tax_usd'))).toBeCloseTo(t.ghost_tax_usd, 9);
    expect(sum(families.get('afterstop_post_cancel_errors'), (l) => l['cause'] === 'orphan_tool_call_rejected')).toBe(t.post_cancel_errors.orphan_tool_call_rejected);
    for (const depth of ['0', '1', '2', '3', '4'] as const) expect(sum(families.get('afterstop_cancel_depth_runs'), (l) => l['depth'] === depth)).toBe(t.cancel_depth[depth]);
    expect(sum(families.get('afterstop_ghost_commits_by_tool'), (l) => l['how'] === 'observed')).toBe(t.ghost_commits);
    expect(sum(families.get('afterstop_ghost_commits_by_tool'), (l) => l['how'] === 'inferred')).toBe(t.ghost_commits_inferred);
    expect(sum(families.get('afterstop_after_stop_tokens_by_model'), (l) => l['direction'] === 'input')).toBe(t.tokens_after_stop.input);
  });

  it('latencies in seconds by statistic, beside their count', () => {
    for (const g of report.groups.filter((x) => x.cancel_ack_ms.count > 0)) {
      const same = (l: Record<string, string>) => l['service'] === (g.service ?? '(none)') && l['agent'] === (g.agent ?? '(none)') && l['framework'] === (g.framework ?? '(none)');
      const p95 = families.get('afterstop_cancel_ack_seconds')!.samples.filter((s) => same(s.labels) && s.labels['stat'] === 'p95');
      expect(p95.map((s) => s.value)).toEqual([g.cancel_ack_ms.p95! / 1000]);
      expect(families.get('afterstop_cancel_ack_measured_runs')!.samples.filter((s) => same(s.labels)).map((s) => s.value)).toEqual([g.cancel_ack_ms.count]);
    }
  });

  it('tools and models beyond the cap are summed as (other); inferred commits are kept apart; odd effects are other; a missing group label is (none)', () => {
    const rows = [{ k: 'a', v: 5 }, { k: 'b', v: 1 }, { k: 'c', v: 3 }, { k: 'a', v: 1 }];
    const { kept, other } = capLabel(rows, (r) => r.k, (r) => r.v, 2);
    expect(kept.map((r) => r.k)).toEqual(['a', 'c', 'a']);
    expect(other.map((r) => r.k)).toEqual(['b']);
    const wide: LeakReport = structuredClone(report);
    wide.totals.ghost_commits_by_tool = [
      { tool: 'charge', effect: 'irreversible', ghost_commits: 3, ghost_commits_inferred: 0 },
      { tool: 'send_email', effect: 'unknown', ghost_commits: 1, ghost_commits_inferred: 2 },
      { tool: 'other', effect: 'made-up', ghost_commits: 1, ghost_commits_inferred: 0 },
    ];
    wide.totals.tokens_after_stop_by_model = [
      { model: 'gpt-4o', input: 10, output: 90, ghost_tax_usd: 1, priced: true },
      { model: 'claude', input: 0, output: 20, ghost_tax_usd: 0.5, priced: true },
      { model: 'llama', input: 0, output: 5, ghost_tax_usd: 0, priced: false },
    ];
    wide.groups = [{ ...wide.groups[0]!, agent: null }];
    const capped = new Map(metricFamilies(wide, { maxLabelValues: 1 }).map((f) => [f.name, f]));
    const tools = capped.get('afterstop_ghost_commits_by_tool')!.samples.filter((s) => s.value > 0).map((s) => [s.labels['tool'], s.labels['effect'], s.labels['how'], s.value]);
    expect(tools).toEqual([['charge', 'irreversible', 'observed', 3], ['(other)', 'unknown', 'observed', 1], ['(other)', 'unknown', 'inferred', 2], ['(other)', 'other', 'observed', 1]]);
    const models = capped.get('afterstop_after_stop_tokens_by_model')!.samples.filter((s) => s.labels['direction'] === 'output').map((s) => [s.labels['model'], s.value]);
    expect(models).toEqual([['gpt-4o', 90], ['(other)', 25]]);
    expect(capped.get('afterstop_ghost_tax_by_model_usd')!.samples.map((s) => [s.labels['model'], s.value])).toEqual([['gpt-4o', 1], ['(other)', 0.5]]);
    expect(capped.get('afterstop_runs')!.samples[0]!.labels['agent']).toBe('(none)');
  });
});
