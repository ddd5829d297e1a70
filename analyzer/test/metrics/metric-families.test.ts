import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { keptValues, metricFamilies, type MetricFamily } from '../../metrics/metric-families.js';

/** The report as metric families: every figure, in base units, by group; tools and models capped. */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
let report: LeakReport;
let families: Map<string, MetricFamily>;
beforeAll(async () => {
  report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:' });
  families = new Map(metricFamilies(report).map((f) => [f.name, f]));
});
afterAll(() => undefined);

const sum = (f: MetricFamily | undefined, where: (labels: Record<string, string>) => boolean = () => true): number => (f?.samples ?? []).filter((s) => where(s.labels)).reduce((n, s) => n + s.value, 0);

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
      expect(
        families
          .get('afterstop_cancel_ack_measured_runs')!
          .samples.filter((s) => same(s.labels))
          .map((s) => s.value),
      ).toEqual([g.cancel_ack_ms.count]);
    }
  });

  it('by tool and by model, per group: each group’s samples sum to its own figures', () => {
    for (const g of report.groups) {
      const same = (l: Record<string, string>) => l['service'] === (g.service ?? '(none)') && l['agent'] === (g.agent ?? '(none)') && l['framework'] === (g.framework ?? '(none)');
      expect(sum(families.get('afterstop_ghost_commits_by_tool'), (l) => same(l) && l['how'] === 'observed')).toBe(g.ghost_commits);
      expect(sum(families.get('afterstop_after_stop_tokens_by_model'), (l) => same(l) && l['direction'] === 'output')).toBe(g.tokens_after_stop.output);
      expect(sum(families.get('afterstop_ghost_tax_by_model_usd'), same)).toBeCloseTo(g.ghost_tax_usd, 9);
    }
    expect(report.groups.length).toBeGreaterThan(1);
    expect(report.groups.filter((g) => g.ghost_commits > 0).length).toBeGreaterThan(0);
  });

  it('every figure of a group has a metric: a figure added to the report without one fails here', () => {
    // Each numeric leaf of a group's figures, and the metric family (and label) that carries it.
    const carried: Record<string, string> = {
      runs: 'afterstop_runs',
      cancelled_runs: 'afterstop_cancelled_runs',
      cancelled_runs_inferred: 'afterstop_cancelled_runs_inferred',
      unended_runs: 'afterstop_unended_runs',
      unacknowledged_cancels: 'afterstop_unacknowledged_cancels',
      ghost_commits: 'afterstop_ghost_commits',
      ghost_commits_inferred: 'afterstop_ghost_commits_inferred',
      ghost_commits_compensated: 'afterstop_ghost_commits_compensated',
      ghost_commits_alarming: 'afterstop_ghost_commits_alarming',
      orphan_tool_calls: 'afterstop_orphan_tool_calls',
      ghost_commits_possible: 'afterstop_ghost_commits_possible',
      ghost_commits_possible_alarming: 'afterstop_ghost_commits_possible_alarming',
      ghost_commits_confirmed: 'afterstop_ghost_commits_confirmed',
      ghost_commits_ruled_out: 'afterstop_ghost_commits_ruled_out',
      repaired_tool_calls: 'afterstop_repaired_tool_calls',
      late_results: 'afterstop_late_results',
      orphan_processes: 'afterstop_orphan_processes',
      'tokens_after_stop.input': 'afterstop_after_stop_tokens',
      'tokens_after_stop.output': 'afterstop_after_stop_tokens',
      'tokens_after_stop.observed_calls': 'afterstop_after_stop_model_calls',
      'tokens_after_stop.estimated_calls': 'afterstop_after_stop_model_calls',
      'tokens_after_stop.calls_without_usage': 'afterstop_after_stop_model_calls',
      'tokens_after_stop.unpriced_calls': 'afterstop_after_stop_unpriced_model_calls',
      'tokens_after_stop.unpriced_tokens.input': 'afterstop_after_stop_unpriced_tokens',
      'tokens_after_stop.unpriced_tokens.output': 'afterstop_after_stop_unpriced_tokens',
      'tokens_after_stop.calls_started_after_stop': 'afterstop_model_calls_started_after_stop',
      ghost_tax_usd: 'afterstop_ghost_tax_usd',
      'post_cancel_errors.orphan_tool_call_rejected': 'afterstop_post_cancel_errors',
      'post_cancel_errors.other': 'afterstop_post_cancel_errors',
      cleanup_errors: 'afterstop_cleanup_errors',
      replay_duplicates: 'afterstop_replay_duplicates',
      replayed_conversations: 'afterstop_replayed_conversations',
      'steering.dropped': 'afterstop_steers_dropped',
      'steering.violations': 'afterstop_steer_violations',
      commits_prevented: 'afterstop_commits_prevented',
      commits_prevented_alarming: 'afterstop_commits_prevented_alarming',
      replays_deduplicated: 'afterstop_replays_deduplicated',
      deadline_cancels: 'afterstop_deadline_cancels',
      'uninstrumented.runs': 'afterstop_uninstrumented_runs',
    };
    for (const d of ['0', '1', '2', '3', '4']) carried[`cancel_depth.${d}`] = 'afterstop_cancel_depth_runs';
    for (const [measure, metric] of [
      ['cancel_ack_ms', 'afterstop_cancel_ack'],
      ['cancel_settle_ms', 'afterstop_cancel_settle'],
      ['steering.inject_ms', 'afterstop_steer_inject'],
    ]) {
      for (const stat of ['p50', 'p95', 'p99', 'max']) carried[`${measure}.${stat}`] = `${metric}_seconds`;
      carried[`${measure}.count`] = `${metric}_measured_runs`;
    }
    const leaves = (o: object, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (Array.isArray(v) ? [] : v !== null && typeof v === 'object' ? leaves(v as object, `${prefix}${k}.`) : typeof v === 'number' || v === null ? [`${prefix}${k}`] : []));
    const { service: _s, agent: _a, framework: _f, ...figures } = report.groups[0]!;
    expect(
      leaves(figures).filter((leaf) => carried[leaf] === undefined),
      'figures without a metric',
    ).toEqual([]);
    for (const metric of new Set(Object.values(carried))) expect(families.has(metric), metric).toBe(true);
  });

  it('tools and models beyond the cap (chosen over all groups) are summed as other; inferred commits are kept apart; odd effects are other; a missing group label is (none)', () => {
    const rows = [
      { k: 'a', v: 5 },
      { k: 'b', v: 1 },
      { k: 'c', v: 3 },
      { k: 'a', v: 1 },
    ];
    expect([
      ...keptValues(
        rows,
        (r) => r.k,
        (r) => r.v,
        2,
      ),
    ]).toEqual(['a', 'c']);
    const wide: LeakReport = structuredClone(report);
    const first = { ...wide.groups[0]!, agent: null };
    first.ghost_commits_by_tool = [
      { tool: 'charge', effect: 'irreversible', ghost_commits: 3, ghost_commits_inferred: 0, ghost_commits_possible: 0, commits_prevented: 0 },
      { tool: 'send_email', effect: 'unknown', ghost_commits: 1, ghost_commits_inferred: 2, ghost_commits_possible: 0, commits_prevented: 0 },
    ];
    first.tokens_after_stop_by_model = [
      { model: 'gpt-4o', input: 10, output: 90, ghost_tax_usd: 1, priced: true },
      { model: 'claude', input: 0, output: 20, ghost_tax_usd: 0.5, priced: true },
    ];
    const second = { ...wide.groups[0]!, service: 'other-service' };
    second.ghost_commits_by_tool = [{ tool: 'other', effect: 'made-up', ghost_commits: 1, ghost_commits_inferred: 0, ghost_commits_possible: 0, commits_prevented: 0 }];
    second.tokens_after_stop_by_model = [{ model: 'llama', input: 0, output: 5, ghost_tax_usd: 0, priced: false }];
    wide.groups = [first, second];
    wide.totals.ghost_commits_by_tool = [...first.ghost_commits_by_tool, ...second.ghost_commits_by_tool];
    wide.totals.tokens_after_stop_by_model = [...first.tokens_after_stop_by_model, ...second.tokens_after_stop_by_model];
    const capped = new Map(metricFamilies(wide, { maxLabelValues: 1 }).map((f) => [f.name, f]));
    const tools = capped
      .get('afterstop_ghost_commits_by_tool')!
      .samples.filter((s) => s.value > 0)
      .map((s) => [s.labels['service'], s.labels['tool'], s.labels['effect'], s.labels['how'], s.value]);
    const a = first.service;
    expect(tools).toEqual([
      [a, 'charge', 'irreversible', 'observed', 3],
      [a, 'other', 'unknown', 'observed', 1],
      [a, 'other', 'unknown', 'inferred', 2],
      ['other-service', 'other', 'other', 'observed', 1],
    ]);
    const models = capped
      .get('afterstop_after_stop_tokens_by_model')!
      .samples.filter((s) => s.labels['direction'] === 'output')
      .map((s) => [s.labels['service'], s.labels['model'], s.value]);
    expect(models).toEqual([
      [a, 'gpt-4o', 90],
      [a, 'other', 20],
      ['other-service', 'other', 5],
    ]);
    expect(capped.get('afterstop_ghost_tax_by_model_usd')!.samples.map((s) => [s.labels['model'], s.value])).toEqual([
      ['gpt-4o', 1],
      ['other', 0.5],
      ['other', 0],
    ]);
    expect(capped.get('afterstop_runs')!.samples[0]!.labels['agent']).toBe('(none)');
  });
});
