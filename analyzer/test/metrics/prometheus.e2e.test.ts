import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../index.js';
import { eventually, startPrometheusStack, type PrometheusStack } from '../../../test/helpers/prometheus.js';
import { runCli, type CliResult } from '../../../test/helpers/cli.js';

/**
 * `leak-report --prometheus-file` and `--push-gateway`, the built CLI, over
 * the golden traces, read back by the real tools: promtool checks the text,
 * a real Pushgateway takes the push and a real Prometheus scrapes it.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const inputs = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => path.join(golden, f));
let dir: string;
let stack: PrometheusStack;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-metrics-'));
  stack = await startPrometheusStack();
}, 60_000);
afterAll(async () => {
  await stack?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The built CLI over the golden traces, in a child process (not spawnSync: the test's own timers go on). */
const run = (args: string[], files = inputs): Promise<CliResult> => runCli(['leak-report', ...files, '--db', ':memory:', ...args]);

describe('leak-report as Prometheus metrics', () => {
  it('--prometheus-file writes the text exposition format (atomically) that promtool accepts, with the JSON report’s figures', async () => {
    const file = path.join(dir, 'afterstop.prom');
    const r = await run(['--format', 'json', '--prometheus-file', file]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as LeakReport;
    const text = fs.readFileSync(file, 'utf8');
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    const runs = [...text.matchAll(/^afterstop_runs\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(runs).toBe(report.totals.runs);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('afterstop.prom'))).toEqual(['afterstop.prom']);
  });

  it('the budgets given are in the metrics, each with its limit and whether the report exceeds it (for the nightly alert)', async () => {
    const file = path.join(dir, 'budgets.prom');
    const r = await run(['--format', 'json', '--prometheus-file', file, '--max-ghost-commits', '0', '--max-orphans', '5']);
    expect(r.status).toBe(1);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^afterstop_budget_exceeded\{budget="max-ghost-commits"\} 1$/m);
    expect(text).toMatch(/^afterstop_budget_exceeded\{budget="max-orphans"\} 0$/m);
    expect(text).toMatch(/^afterstop_budget_limit\{budget="max-orphans"\} 5$/m);
    expect(text).not.toMatch(/budget="max-replays"/);
    expect(fs.readFileSync(path.join(dir, 'afterstop.prom'), 'utf8')).not.toContain('afterstop_budget_');
  });

  it('--push-gateway: Prometheus scrapes the pushed figures with job and instance labels, equal to the JSON report', async () => {
    const r = await run(['--format', 'json', '--push-gateway', stack.pushgateway, '--push-instance', 'nightly-1']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`pushed the metrics to ${stack.pushgateway}`);
    const report = JSON.parse(r.stdout) as LeakReport;
    const runs = await eventually(
      'the runs scraped',
      async () => {
        const v = await stack.query('sum(afterstop_runs{job="afterstop",instance="nightly-1"})');
        return v.length > 0 ? Number(v[0]!.value[1]) : undefined;
      },
      20_000,
    );
    expect(runs).toBe(report.totals.runs);
    const ghosts = await stack.query('sum(afterstop_ghost_commits)');
    expect(Number(ghosts[0]!.value[1])).toBe(report.totals.ghost_commits);
    const tax = await stack.query('sum(afterstop_ghost_tax_usd)');
    expect(Number(tax[0]!.value[1])).toBeCloseTo(report.totals.ghost_tax_usd, 9);
    const byService = await stack.query('sum by (service) (afterstop_cancelled_runs)');
    expect(Object.fromEntries(byService.map((s) => [s.metric['service'], Number(s.value[1])]))).toEqual(
      Object.fromEntries([...new Set(report.groups.map((g) => g.service ?? ''))].map((svc) => [svc, report.groups.filter((g) => (g.service ?? '') === svc).reduce((n, g) => n + g.cancelled_runs, 0)])),
    );
  });

  it('--prometheus-file replaces the file whole (a new file renamed over it): a reader of the old one still reads it complete', async () => {
    const file = path.join(dir, 'replaced.prom');
    expect((await run(['--format', 'json', '--prometheus-file', file], inputs.slice(0, 1))).status).toBe(0);
    const before = fs.statSync(file).ino;
    const reader = fs.openSync(file, 'r');
    const old = fs.readFileSync(file, 'utf8');
    try {
      expect((await run(['--format', 'json', '--prometheus-file', file])).status).toBe(0);
      expect(fs.statSync(file).ino).not.toBe(before);
      expect(fs.readFileSync(reader, 'utf8')).toBe(old);
      expect(fs.readFileSync(file, 'utf8')).not.toBe(old);
      expect(spawnSync('promtool', ['check', 'metrics'], { input: fs.readFileSync(file, 'utf8'), encoding: 'utf8' }).status).toBe(0);
    } finally {
      fs.closeSync(reader);
    }
  });

  it('--max-label-values 0: every tool and model is summed as other, and the sums are unchanged', async () => {
    const file = path.join(dir, 'capped.prom');
    const r = await run(['--format', 'json', '--prometheus-file', file, '--max-label-values', '0']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as LeakReport;
    const text = fs.readFileSync(file, 'utf8');
    const samples = (name: string) => [...text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))].map((m) => ({ labels: m[1]!, value: Number(m[2]) }));
    const byModel = samples('afterstop_after_stop_tokens_by_model');
    expect(byModel.length).toBeGreaterThan(0);
    expect(byModel.every((x) => x.labels.includes('model="other"'))).toBe(true);
    expect(byModel.reduce((n, x) => n + x.value, 0)).toBe(report.totals.tokens_after_stop.input + report.totals.tokens_after_stop.output);
    const byTool = samples('afterstop_ghost_commits_by_tool');
    expect(byTool.every((x) => x.labels.includes('tool="other"'))).toBe(true);
    expect(byTool.reduce((n, x) => n + x.value, 0)).toBe(report.totals.ghost_commits + report.totals.ghost_commits_inferred);
  });

  it('a second push to the same job and instance replaces the first: series of the old report are gone', async () => {
    const first = await run(['--format', 'json', '--push-gateway', stack.pushgateway, '--push-instance', 'replaced']);
    expect(first.status, first.stderr).toBe(0);
    const all = JSON.parse(first.stdout) as LeakReport;
    await eventually('the first push scraped', async () => ((await stack.query('sum(afterstop_runs{instance="replaced"})'))[0]?.value[1] === String(all.totals.runs) ? true : undefined), 20_000);
    const second = await run(['--format', 'json', '--push-gateway', stack.pushgateway, '--push-instance', 'replaced'], inputs.slice(0, 1));
    expect(second.status, second.stderr).toBe(0);
    const one = JSON.parse(second.stdout) as LeakReport;
    expect(one.totals.runs).toBeLessThan(all.totals.runs);
    await eventually('the second push replacing it', async () => ((await stack.query('sum(afterstop_runs{instance="replaced"})'))[0]?.value[1] === String(one.totals.runs) ? true : undefined), 20_000);
    const services = (await stack.query('count by (service) (afterstop_runs{instance="replaced"})')).map((x) => x.metric['service']).sort();
    expect(services).toEqual([...new Set(one.groups.map((g) => g.service ?? '(none)'))].sort());
  });

  it('a push that fails (nothing listening) is an error on stderr and exit code 2; the report is still written', async () => {
    const out = path.join(dir, 'report.json');
    const r = await run(['--out', out, '--push-gateway', 'http://127.0.0.1:9']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/could not push the metrics to http:\/\/127\.0\.0\.1:9/);
    expect(fs.existsSync(out)).toBe(true);
  });

  it('a broken budget and a failed push: both on stderr, and the budget’s exit code 1 (what the nightly job is for)', async () => {
    const r = await run(['--format', 'json', '--max-ghost-commits', '0', '--push-gateway', 'http://127.0.0.1:9']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/budget exceeded: --max-ghost-commits 0/);
    expect(r.stderr).toMatch(/could not push the metrics/);
  });

  it('a bad --push-gateway is a usage error', async () => {
    const r = await run(['--push-gateway', 'ftp://x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not an http\(s\) URL/);
  });
});
