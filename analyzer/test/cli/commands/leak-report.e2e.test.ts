import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { resolveFormat, traceUrlTemplate } from '../../../cli/commands/leak-report.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/** `afterstop leak-report`, the built CLI, as a nightly job runs it (stdout is a pipe, not a terminal). */
const cli = cliPath;
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const traces = path.join(golden, 'g2-ghost-email.jsonl');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-cli-report-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['NO_COLOR', 'FORCE_COLOR', 'AFTERSTOP_TRACES_DIR'].includes(k)));
  return spawnSync(process.execPath, [cli, 'leak-report', ...args], { encoding: 'utf8', timeout: 60_000, env: { ...clean, ...env }, ...(cwd !== undefined ? { cwd } : {}) });
}
const ansi = /\x1b\[/;

describe('leak-report formats', () => {
  let json: LeakReport;
  beforeAll(() => {
    const out = run([traces, '--db', ':memory:']);
    expect(out.status).toBe(0);
    json = JSON.parse(out.stdout) as LeakReport;
  });

  it('json when stdout is not a terminal: METRICS.md report, with the ghost commit of g2', () => {
    expect(json.schema).toBe('afterstop.leak-report/0.1');
    expect(json.totals.ghost_commits).toBe(1);
    expect(json.distributions.cancel_ack_ms.length).toBeGreaterThan(0);
  });

  it('table: the summary, colour only when asked for, never with NO_COLOR', () => {
    const plain = run([traces, '--db', ':memory:', '--format', 'table']);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('afterstop leak report');
    expect(plain.stdout).toMatch(/Ghost commits\s+1 /);
    expect(plain.stdout).toMatch(/send_email\s+irreversible\s+1/);
    expect(plain.stdout).not.toMatch(ansi);
    expect(run([traces, '--db', ':memory:', '--format', 'table'], { FORCE_COLOR: '1' }).stdout).toMatch(ansi);
    expect(run([traces, '--db', ':memory:', '--format', 'table'], { FORCE_COLOR: '1', NO_COLOR: '1' }).stdout).not.toMatch(ansi);
  });

  it('markdown: tables for a pull request', () => {
    const out = run([traces, '--db', ':memory:', '--format', 'markdown']);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('## afterstop leak report');
    expect(out.stdout).toContain('| Ghost commits | 1 (1 irreversible or unknown, 0 inferred) |');
  });

  it('--out writes the file (format from its extension), nothing on stdout', () => {
    const file = path.join(dir, 'report.html');
    const out = run([traces, '--db', ':memory:', '--out', file]);
    expect(out.status).toBe(0);
    expect(out.stdout).toBe('');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
  });

  it('arrow: groups and findings files that read back as the JSON’s rows; refused without --out', () => {
    expect(run([traces, '--db', ':memory:', '--format', 'arrow']).status).toBe(2);
    const file = path.join(dir, 'report.arrow');
    expect(run([traces, '--db', ':memory:', '--format', 'arrow', '--out', file]).status).toBe(0);
    const groups = tableFromIPC(fs.readFileSync(file))
      .toArray()
      .map((r) => r.toJSON() as Record<string, unknown>);
    expect(groups).toHaveLength(json.groups.length + 1);
    json.groups.forEach((g, i) => {
      expect(groups[i]).toMatchObject({ service: g.service, agent: g.agent, framework: g.framework, is_total: false });
      expect(Number(groups[i]!['ghost_commits'])).toBe(g.ghost_commits);
      expect(groups[i]!['ghost_tax_usd']).toBeCloseTo(g.ghost_tax_usd, 12);
      expect(groups[i]!['cancel_ack_ms_p95']).toBe(g.cancel_ack_ms.p95);
      expect(Number(groups[i]!['cancel_depth_4'])).toBe(g.cancel_depth['4']);
    });
    const total = groups[groups.length - 1]!;
    expect(total['is_total']).toBe(true);
    expect(Number(total['orphan_tool_calls'])).toBe(json.totals.orphan_tool_calls);
    const findings = tableFromIPC(fs.readFileSync(path.join(dir, 'report.findings.arrow')))
      .toArray()
      .map((r) => r.toJSON() as Record<string, unknown>);
    expect(findings.map((f) => [f['kind'], Number(f['severity']), f['trace_id'], f['run_id'], f['tool'], f['detail'], new Date(Number(f['time'])).toISOString()])).toEqual(
      json.findings.map((f) => [f.kind, f.severity, f.trace_id, f.run_id, f.tool, f.detail, f.time]),
    );
  });
});

describe('leak-report budgets and exit codes', () => {
  it('exit 1 when a budget is exceeded, after printing the report, the budget named on stderr', () => {
    const out = run([traces, '--db', ':memory:', '--max-ghost-commits', '0', '--max-orphans', '5']);
    expect(out.status).toBe(1);
    expect(JSON.parse(out.stdout).totals.ghost_commits).toBe(1);
    expect(out.stderr).toMatch(/budget exceeded: --max-ghost-commits 0, the report has 1/);
    expect(out.stderr).not.toMatch(/--max-orphans/);
  });

  it('exit 0 when every budget holds', () => {
    const out = run([traces, '--db', ':memory:', '--max-ghost-commits', '1', '--max-ghost-tax-usd', '100', '--max-cancel-ack-p95-ms', '100000', '--max-unacknowledged', '0']);
    expect(out.stderr).not.toMatch(/budget/);
    expect(out.status).toBe(0);
  });

  it('the ghost-tax budget is not passed on unpriced spend (exit 1, said to be the unpriced spend), unless told it may be; --prices prices it', () => {
    // g4 (the loop went on after Stop) with a model genai-prices does not know: 1,500 tokens after Stop without a price.
    const file = path.join(dir, 'unpriced.jsonl');
    fs.writeFileSync(file, fs.readFileSync(path.join(golden, 'g4-loop-continues.jsonl'), 'utf8').replaceAll('"stringValue":"gpt-4o"', '"stringValue":"my-finetune-7b"'));
    const out = run([file, '--db', ':memory:', '--max-ghost-tax-usd', '100']);
    expect(out.status).toBe(1);
    const report = JSON.parse(out.stdout) as LeakReport;
    expect(report.totals.ghost_tax_usd).toBe(0);
    expect(report.totals.tokens_after_stop.unpriced_calls).toBe(1);
    expect(out.stderr).toContain('budget not passed: --max-ghost-tax-usd 100, the report has 0 and the unpriced spend: 1 model call(s) after Stop without a price (1200 input, 300 output tokens)');
    const allowed = run([file, '--db', ':memory:', '--max-ghost-tax-usd', '100', '--ghost-tax-budget-allows-unpriced']);
    expect(allowed.stderr).not.toMatch(/budget/);
    expect(allowed.status).toBe(0);
    // The user's table prices the model: nothing unpriced, the budget holds (and breaks above it).
    const prices = path.join(dir, 'prices.json');
    fs.writeFileSync(prices, JSON.stringify({ models: { 'my-finetune-7b': { input_usd_per_mtok: 1000, output_usd_per_mtok: 1000 } } }));
    const priced = run([file, '--db', ':memory:', '--prices', prices, '--max-ghost-tax-usd', '100']);
    expect(priced.stderr).not.toMatch(/budget/);
    expect(priced.status).toBe(0);
    const pricedReport = JSON.parse(priced.stdout) as LeakReport;
    expect(pricedReport.totals.tokens_after_stop.unpriced_calls).toBe(0);
    expect(pricedReport.totals.ghost_tax_usd).toBeCloseTo((1200 + 300) * 1000e-6, 9);
    expect(pricedReport.prices.source).toBe(`${prices} over @pydantic/genai-prices 0.1.8`);
    expect(run([file, '--db', ':memory:', '--prices', prices, '--max-ghost-tax-usd', '0']).status).toBe(1);
  });

  it('exit 2 for usage errors and unreadable input', () => {
    expect(run([path.join(dir, 'missing.jsonl'), '--db', ':memory:']).status).toBe(2);
    expect(run([traces, '--format', 'yaml']).status).toBe(2);
    expect(run([traces, '--max-ghost-commits', 'many']).status).toBe(2);
    const js = run([traces, '--db', ':memory:', '--format', 'html', '--trace-url', 'javascript:alert(1)//{trace_id}']);
    expect(js.status).toBe(2);
    expect(js.stderr).toMatch(/http: or https:/);
  });

  it('no paths: the folder the instrumentation writes (./afterstop-traces, or AFTERSTOP_TRACES_DIR); missing, it says no instrumented run wrote there yet and how to check', () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'default-'));
    const missing = run(['--db', ':memory:'], {}, cwd);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^afterstop: afterstop-traces: no such folder, so no run instrumented by afterstop has written its traces here yet\.\n/);
    expect(missing.stderr).toMatch(/node --import afterstop\/register/);
    expect(missing.stderr).toMatch(/AFTERSTOP_DEBUG=1/);
    fs.mkdirSync(path.join(cwd, 'afterstop-traces'));
    fs.copyFileSync(traces, path.join(cwd, 'afterstop-traces', 'g2.jsonl'));
    const found = run(['--db', ':memory:'], {}, cwd);
    expect(found.status, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as LeakReport).totals.ghost_commits).toBe(1);
    const elsewhere = run(['--db', ':memory:'], { AFTERSTOP_TRACES_DIR: path.join(cwd, 'elsewhere') }, cwd);
    expect(elsewhere.status).toBe(2);
    expect(elsewhere.stderr).toContain(`${path.join(cwd, 'elsewhere')}: no such folder, so no run instrumented by afterstop`);
  });

  it('--since takes an age: the golden traces of 2026-09 are older than a day', () => {
    const out = run([traces, '--db', ':memory:', '--since', '24h']);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout).totals.runs).toBe(0);
  });
});

describe('format resolution and options', () => {
  it('the format asked for, else what --out ends with, else table on a terminal and json elsewhere', () => {
    expect(resolveFormat('markdown', 'x.html', true)).toBe('markdown');
    expect(resolveFormat(undefined, 'x.html', true)).toBe('html');
    expect(resolveFormat(undefined, 'x.md', false)).toBe('markdown');
    expect(resolveFormat(undefined, 'x.unknown', true)).toBe('json');
    expect(resolveFormat(undefined, undefined, true)).toBe('table');
    expect(resolveFormat(undefined, undefined, false)).toBe('json');
  });
  it('a trace URL template is http(s) and names an id', () => {
    expect(traceUrlTemplate('http://tempo:3200/trace/{trace_id}')).toBe('http://tempo:3200/trace/{trace_id}');
    expect(() => traceUrlTemplate('file:///{trace_id}')).toThrow();
    expect(() => traceUrlTemplate('https://tempo/')).toThrow(/neither/);
  });
});
