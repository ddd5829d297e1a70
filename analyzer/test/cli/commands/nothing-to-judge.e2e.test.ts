import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { reportEvidence } from '../../../report-evidence.js';
import { traces } from '../../../../test/helpers/trace-builder.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/**
 * Nothing read is not nothing found: `afterstop leak-report` over no span, or no run, says so first in every
 * format, names what it read, and does not pass its budgets (exit 3) unless --allow-empty says the night may
 * truly be empty. The built CLI, as a nightly job runs it.
 */
const cli = cliPath;
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
let dir: string;
let empty: string;
let notOtlp: string;
let noRuns: string;
let notStopped: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-nothing-'));
  empty = path.join(dir, 'empty');
  fs.mkdirSync(empty);
  notOtlp = path.join(dir, 'export.json');
  fs.writeFileSync(notOtlp, '{"hello": "a JSON file that is not OTLP"}\n');
  // Spans, but none an agent run: an HTTP server's span.
  const t = traces();
  t.add('web', { traceId: t.newTraceId(), spanId: t.newSpanId(), name: 'GET /health', kind: 2, startNs: 1_790_000_000_000_000_000n, endNs: 1_790_000_000_001_000_000n, attrs: [['http.request.method', 'GET']] });
  noRuns = t.write('http.jsonl');
  // Runs, none of them stopped.
  const u = traces();
  u.run({ startMs: 0, endMs: 100, outcome: 'completed' });
  notStopped = u.write('completed.jsonl');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['NO_COLOR', 'FORCE_COLOR', 'AFTERSTOP_TRACES_DIR'].includes(k)));
  return spawnSync(process.execPath, [cli, 'leak-report', '--db', ':memory:', '--no-progress', ...args], { encoding: 'utf8', timeout: 60_000, env });
}
const json = (args: string[]): LeakReport => {
  const out = run([...args, '--format', 'json']);
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as LeakReport;
};

describe('a report over nothing', () => {
  it('an empty folder: no_spans, the folder named; the table says it before any figure and is no all-clear', () => {
    const report = json([empty]);
    expect(report.evidence.status).toBe('no_spans');
    expect(report.evidence.note).toContain(`0 trace files at ${empty}`);
    // The JSON's verdict is the note: nothing to judge.
    expect(report.verdict).toEqual({ status: 'nothing_to_judge', sentence: report.evidence.note, remedies: {} });
    expect(report.input.paths).toEqual([empty]);
    expect(report.input.spans_in_store).toBe(0);
    const table = run([empty, '--format', 'table']);
    expect(table.status).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('afterstop leak report');
    expect(lines[1]).toMatch(/^NOTHING TO JUDGE: Nothing read: 0 trace files at /);
    expect(table.stdout).not.toContain('nothing kept running after Stop');
    expect(table.stdout).toContain('not an all-clear');
  });

  it('a JSON file that is not OTLP: the file, its line and why it was skipped are in the note', () => {
    const report = json([notOtlp]);
    expect(report.evidence.status).toBe('no_spans');
    expect(report.evidence.note).toContain(`1 trace file at ${notOtlp}`);
    expect(report.evidence.note).toContain(`${notOtlp}:1: not an ExportTraceServiceRequest`);
  });

  it('spans but no agent run: no_runs, the spans counted', () => {
    const report = json([noRuns]);
    expect(report.evidence.status).toBe('no_runs');
    expect(report.input.spans_in_store).toBe(1);
    expect(report.evidence.note).toMatch(/^No agent run: 1 trace file at .*, 1 span in the store/);
  });

  it('runs outside the window: no_runs, the window named', () => {
    const report = json([golden, '--since', '2h']);
    expect(report.totals.runs).toBe(0);
    expect(report.evidence.status).toBe('no_runs');
    expect(report.evidence.note).toMatch(/^No agent run starts in the window \(\d{4}-.* to now\)/);
  });

  it('runs, none stopped: evidence of runs, and the table says no run was stopped rather than an all-clear', () => {
    expect(json([notStopped]).evidence).toEqual({ status: 'runs', note: null });
    const table = run([notStopped, '--format', 'table']);
    expect(table.stdout).not.toContain('NOTHING TO JUDGE');
    expect(table.stdout).toContain('No run was stopped in this window (1 run(s)): nothing to measure after Stop.');
  });

  it('the golden traces: runs, no note', () => {
    expect(json([golden]).evidence).toEqual({ status: 'runs', note: null });
  });
});

describe('every format says it first', () => {
  it('markdown: the note right under the title', () => {
    const out = run([empty, '--format', 'markdown']);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toBe('## afterstop leak report');
    expect(lines[2]).toMatch(/^> \*\*Nothing to judge\.\*\* Nothing read: 0 trace files at /);
    expect(out.stdout).toContain('No findings, because there was nothing to judge: this is not an all-clear.');
  });

  it('html: a banner before the figures, escaped', () => {
    const named = path.join(dir, '<i>x&y');
    fs.mkdirSync(named);
    const out = run([named, '--format', 'html']);
    const banner = out.stdout.indexOf('class="nothing"');
    expect(banner).toBeGreaterThan(0);
    expect(banner).toBeLessThan(out.stdout.indexOf('class="cards"'));
    expect(out.stdout).toContain('data-evidence="no_spans"');
    expect(out.stdout).toContain('&lt;i&gt;x&amp;y');
    expect(out.stdout).not.toContain('<i>x');
  });

  it('arrow: the groups file carries the evidence in its schema metadata', () => {
    const out = path.join(dir, 'r.arrow');
    expect(run([noRuns, '--out', out]).status).toBe(0);
    const table = tableFromIPC(fs.readFileSync(out));
    expect(table.schema.metadata.get('afterstop.evidence.status')).toBe('no_runs');
    expect(table.schema.metadata.get('afterstop.evidence.note')).toMatch(/^No agent run/);
    expect(table.numRows).toBe(1);
  });

  it('prometheus: a gauge says there was nothing to judge', () => {
    const file = path.join(dir, 'm.prom');
    expect(run([empty, '--format', 'json', '--prometheus-file', file]).status).toBe(0);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('afterstop_report_nothing_to_judge{status="no_spans"} 1');
    expect(text).toMatch(/^afterstop_report_store_spans 0$/m);
    const golden2 = path.join(dir, 'g.prom');
    expect(run([golden, '--format', 'json', '--prometheus-file', golden2]).status).toBe(0);
    expect(fs.readFileSync(golden2, 'utf8')).toContain('afterstop_report_nothing_to_judge{status="runs"} 0');
  });

  it('json off a terminal: the note on stderr too', () => {
    const out = run([empty, '--format', 'json']);
    expect(out.stderr).toContain('afterstop: nothing to judge: Nothing read: 0 trace files at');
  });
});

describe('budgets are not passed on nothing', () => {
  it('exit 3 with budgets, named on stderr; 0 with --allow-empty; 0 without budgets', () => {
    const judged = run([notOtlp, '--max-ghost-commits', '0', '--format', 'json']);
    expect(judged.status).toBe(3);
    expect(judged.stderr).toContain('the budgets are not passed on a report with nothing to judge (exit 3)');
    expect(run([notOtlp, '--max-ghost-commits', '0', '--format', 'json', '--allow-empty']).status).toBe(0);
    expect(run([notOtlp, '--format', 'json']).status).toBe(0);
    expect(run([golden, '--since', '2h', '--max-orphans', '5', '--format', 'json']).status).toBe(3);
  });

  it('a broken budget is still exit 1, and runs that pass their budgets exit 0', () => {
    expect(run([golden, '--max-ghost-commits', '0', '--format', 'json']).status).toBe(1);
    expect(run([notStopped, '--max-ghost-commits', '0', '--format', 'json']).status).toBe(0);
  });
});

describe('reportEvidence', () => {
  const input = (o: Partial<LeakReport['input']>): LeakReport['input'] => ({ paths: [], files: 0, files_read: 0, spans_read: 0, spans_added: 0, spans_in_store: 0, skipped: [], skipped_count: 0, ...o });
  const all = { from: null, to: null };
  it('runs: no note, whatever was read', () => {
    expect(reportEvidence(input({}), 3, all)).toEqual({ status: 'runs', note: null });
  });
  it('ClickHouse: the table named, never a file count', () => {
    const e = reportEvidence(input({ paths: ['ClickHouse table otel.otel_traces'] }), 0, all, 'clickhouse');
    expect(e).toEqual({ status: 'no_spans', note: 'Nothing read: read from ClickHouse table otel.otel_traces, no span in the store. No figure of this report is an all-clear.' });
  });
  it('many skipped lines: three named, the rest counted', () => {
    const skipped = Array.from({ length: 5 }, (_, i) => ({ file: 'f.json', line: i + 1, reason: 'bad' }));
    const e = reportEvidence(input({ paths: ['a', 'b', 'c', 'd'], files: 4, skipped, skipped_count: 5 }), 0, all);
    expect(e.note).toBe('Nothing read: 4 trace files at a, b, c and 1 more, no span in the store; 5 lines skipped (f.json:1: bad; f.json:2: bad; f.json:3: bad; …). No figure of this report is an all-clear.');
  });
});
