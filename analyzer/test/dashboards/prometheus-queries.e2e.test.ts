import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { pushReport } from '../../metrics/prometheus.js';
import { startPrometheusStack, type PrometheusStack } from '../../../test/helpers/prometheus.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * Every Prometheus query of the overview dashboard, its variables set to All,
 * run through a real Prometheus that scraped the golden report from a real
 * Pushgateway: each returns series, and the key panels show the report's figures.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const overview = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../dashboards/ghost-overview.json', import.meta.url)), 'utf8')) as {
  panels: { title?: string; targets?: { expr?: string }[] }[];
  templating: { list: { name: string; type: string; query?: string }[] };
};
type Choice = Partial<Record<'service' | 'agent' | 'framework', string>>;
/** The panels' queries with the variables set as Grafana would: a chosen value (regex-escaped), else All (`.*`). */
const queriesFor = (choice: Choice = {}) =>
  overview.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      title: p.title ?? '',
      expr: (t.expr ?? '').replace(/\$(service|agent|framework)\b/g, (_m, name: keyof Choice) => (choice[name] === undefined ? '.*' : choice[name]!.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&'))),
    })),
  );
// The live row reads the instrumentation's metrics, scraped from an app: test/dashboards/alerts-live.test.ts runs it.
const queries = queriesFor().filter((q) => !q.title.endsWith('(live)'));
// Beside the golden traces, a service with possible ghost commits (none of the golden traces has one).
const possibleFile = (() => {
  const t = traces();
  const r = t.run({ service: 'mailer', startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.ack(110);
  r.tool({ name: 'send_email', callId: 'a', startMs: 50, endMs: 105, effect: 'irreversible' });
  r.commit({ callId: 'a', atMs: 101, evidence: 'request_sent', unansweredMs: 40 });
  r.tool({ name: 'book', callId: 'b', startMs: 60, effect: 'reversible' });
  return t.write('possible-ghosts.jsonl');
})();
let stack: PrometheusStack;
let report: LeakReport;

beforeAll(async () => {
  stack = await startPrometheusStack();
  report = await analyze({ inputs: [`${golden}*.jsonl`, possibleFile], db: ':memory:' });
  expect(report.totals.ghost_commits_possible).toBe(2);
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

/** A panel's series, each as its labels (those named) and value. */
const seriesOf = async (title: string, labels: string[] = [], choice: Choice = {}): Promise<[string, number][]> => {
  const q = queriesFor(choice).find((x) => x.title === title);
  if (q === undefined) throw new Error(`no panel ${title}`);
  const result = await stack.query(q.expr);
  return result.map((s): [string, number] => [labels.map((l) => s.metric[l]).join(' '), Number(s.value[1])]).sort(([a], [b]) => a.localeCompare(b));
};
const value = async (title: string, choice: Choice = {}): Promise<number> => (await seriesOf(title, [], choice)).reduce((n, [, v]) => n + v, 0);
const sorted = (rows: [string, number][]): [string, number][] => rows.filter(([, v]) => v !== 0).sort(([a], [b]) => a.localeCompare(b));

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
    expect(await value('Possible ghost commits')).toBe(t.ghost_commits_possible);
    expect(await value('Orphan tool calls')).toBe(t.orphan_tool_calls);
    expect(await value('Replay duplicates')).toBe(t.replay_duplicates);
    expect(await value('Post-cancel errors')).toBe(t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other);
    expect(await value('Ghost commits by tool and effect')).toBe(t.ghost_commits + t.ghost_commits_inferred + t.ghost_commits_possible);
    expect(await value('Cancel-depth scorecard')).toBe(t.cancel_depth_by_framework.reduce((n, f) => n + f.cancelled_runs, 0));
  });

  it('the by-model, latency, scorecard and steering panels show the report’s figures series by series', async () => {
    const t = report.totals;
    expect(sorted(await seriesOf('Tokens after Stop by model', ['model', 'direction']))).toEqual(
      sorted(
        t.tokens_after_stop_by_model.flatMap((m): [string, number][] => [
          [`${m.model} input`, m.input],
          [`${m.model} output`, m.output],
        ]),
      ),
    );
    expect(t.tokens_after_stop_by_model.length).toBeGreaterThan(0);
    const frameworks = [...new Set(report.groups.map((g) => g.framework ?? '(none)'))];
    for (const [title, of] of [
      ['Cancel ack latency p95, worst group by framework', 'cancel_ack_ms'],
      ['Cancel settle latency p95, worst group by framework', 'cancel_settle_ms'],
    ] as const) {
      const expected = frameworks.flatMap((f): [string, number][] => {
        const p95s = report.groups.filter((g) => (g.framework ?? '(none)') === f && g[of].p95 !== null).map((g) => g[of].p95! / 1000);
        return p95s.length === 0 ? [] : [[f, Math.max(...p95s)]];
      });
      expect(expected.length, title).toBeGreaterThan(0);
      const got = await seriesOf(title, ['framework']);
      expect(got.map(([f]) => f)).toEqual(expected.map(([f]) => f).sort());
      for (const [f, v] of expected) expect(got.find(([g]) => g === f)![1]).toBeCloseTo(v, 9);
    }
    expect(sorted(await seriesOf('Cancel-depth scorecard', ['framework', 'depth']))).toEqual(
      sorted(t.cancel_depth_by_framework.flatMap((f) => Object.entries(f.cancel_depth).map(([d, n]): [string, number] => [`${f.framework ?? '(none)'} ${d}`, n]))),
    );
    expect(await value('Steering messages dropped')).toBe(t.steering.dropped);
    expect(await value('Steering violations')).toBe(t.steering.violations);
    const injects = report.groups.map((g) => g.steering.inject_ms.p95).filter((v): v is number => v !== null);
    expect(await value('Steering inject latency p95, worst group')).toBeCloseTo(Math.max(...injects) / 1000, 9);
  });

  it('with one service chosen, the panels show that service’s figures, by tool and by model too', async () => {
    const services = [...new Set(report.groups.map((g) => g.service ?? '(none)'))];
    expect(services.length).toBeGreaterThan(1);
    for (const service of services) {
      const mine = report.groups.filter((g) => (g.service ?? '(none)') === service);
      const total = (f: (g: (typeof mine)[number]) => number) => mine.reduce((n, g) => n + f(g), 0);
      const choice = { service };
      expect(await value('Cancelled runs', choice), service).toBe(total((g) => g.cancelled_runs));
      expect(await value('Ghost commits', choice), service).toBe(total((g) => g.ghost_commits));
      expect(await value('Ghost tax', choice), service).toBeCloseTo(
        total((g) => g.ghost_tax_usd),
        9,
      );
      expect(await value('Ghost commits by tool and effect', choice), service).toBe(total((g) => g.ghost_commits + g.ghost_commits_inferred + g.ghost_commits_possible));
      expect(await value('Possible ghost commits', choice), service).toBe(total((g) => g.ghost_commits_possible));
      expect(await value('Tokens after Stop by model', choice), service).toBe(total((g) => g.tokens_after_stop.input + g.tokens_after_stop.output));
    }
  });
});
