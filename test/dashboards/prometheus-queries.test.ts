import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../analyzer/index.js';
import { pushReport } from '../../analyzer/metrics/prometheus.js';
import { startPrometheusStack, type PrometheusStack } from '../helpers/prometheus.js';

/**
 * Every Prometheus query of the overview dashboard, its variables set to All,
 * run through a real Prometheus that scraped the golden report from a real
 * Pushgateway: each returns series, and the key panels show the report's figures.
 */
const golden = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
const overview = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../dashboards/ghost-overview.json', import.meta.url)), 'utf8')) as {
  panels: { title?: string; targets?: { expr?: string }[] }[];
  templating: { list: { name: string; type: string; query?: string }[] };
};
const queries = overview.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title ?? '', expr: (t.expr ?? '').replace(/\$(service|agent|framework)\b/g, '.*') })));
let stack: PrometheusStack;
let report: LeakReport;

beforeAll(async () => {
  stack = await startPrometheusStack();
  report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:' });
  await pushReport(stack.pushgateway, report, { instance: 'dashboard-test' });
  const deadline = Date.now() + 20_000;
  while ((await stack.query('afterstop_runs')).length === 0) {
    if (Date.now() > deadline) throw new Error('Prometheus never scraped the push');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const value = async (title: string): Promise<number> => {
  const q = queries.find((x) => x.title === title);
  if (q === undefined) throw new Error(`no panel ${title}`);
  const result = await stack.query(q.expr);
  return result.reduce((n, s) => n + Number(s.value[1]), 0);
};

describe('the overview dashboard against a real Prometheus', () => {
  it('has queries to run', () => {
    expect(queries.length).toBeGreaterThan(15);
  });

  it.each(queries.map((q) => [q.title, q.expr]))('%s: %s returns series', async (_title, expr) => {
    expect((await stack.query(expr)).length).toBeGreaterThan(0);
  });

  it.each(overview.templating.list.filter((v) => v.type === 'query').map((v) => [v.name, v.query ?? '']))('variable %s (%s) offers the report’s values', async (name, query) => {
    const m = /^label_values\((\w+), (\w+)\)$/.exec(query);
    expect(m, query).not.toBeNull();
    const values = await stack.labelValues(m![1]!, m![2]!);
    const expected = [...new Set(report.groups.map((g) => (g as unknown as Record<string, string | null>)[name] ?? '(none)'))].sort();
    expect(values.sort()).toEqual(expected);
  });

  it('the key panels show the figures of the JSON report', async () => {
    const t = report.totals;
    expect(await value('Ghost tax')).toBeCloseTo(t.ghost_tax_usd, 9);
    expect(await value('Cancelled runs')).toBe(t.cancelled_runs);
    expect(await value('Ghost commits')).toBe(t.ghost_commits);
    expect(await value('Orphan tool calls')).toBe(t.orphan_tool_calls);
    expect(await value('Replay duplicates')).toBe(t.replay_duplicates);
    expect(await value('Post-cancel errors')).toBe(t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other);
    expect(await value('Ghost commits by tool and effect')).toBe(t.ghost_commits + t.ghost_commits_inferred);
    expect(await value('Cancel-depth scorecard')).toBe(t.cancel_depth_by_framework.reduce((n, f) => n + f.cancelled_runs, 0));
  });
});
