import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Explanation } from '../../../types.js';
import type { LeakReport } from '../../../index.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/** `afterstop explain`, the built CLI, after a nightly leak-report filled the store, as a person follows up a finding. */
const cli = cliPath;
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
let dir: string;
let store: string;
let report: LeakReport;

function run(command: string, args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['NO_COLOR', 'FORCE_COLOR', 'AFTERSTOP_TRACES_DIR'].includes(k)));
  return spawnSync(process.execPath, [cli, command, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...clean, ...env }, cwd: dir });
}
const ansi = /\x1b\[/;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-cli-explain-'));
  store = path.join(dir, 'store');
  const out = run('leak-report', [golden, '--db', store, '--format', 'json']);
  expect(out.status).toBe(0);
  report = JSON.parse(out.stdout) as LeakReport;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('afterstop explain', () => {
  it('a finding by the number leak-report gave it, over the store it filled: JSON when stdout is not a terminal', () => {
    const out = run('explain', ['1', '--db', store]);
    expect(out.status).toBe(0);
    const e = JSON.parse(out.stdout) as Explanation;
    expect(e.finding).toEqual(report.findings[0]);
    expect(e.timelines[0]).toMatchObject({ run_id: report.findings[0]!.run_id, trace_id: report.findings[0]!.trace_id, cancelled: true });
    expect(e.timelines[0]!.items.some((i) => i.kind === 'commit' && i.ghost === 'known')).toBe(true);
    const hashed = JSON.parse(run('explain', ['#2', '--db', store]).stdout) as Explanation;
    expect(hashed.finding).toEqual(report.findings[1]);
  });

  it('the table: offsets from Stop, the ghost commit marked; colour only when asked for, never with NO_COLOR', () => {
    const table = run('explain', [report.findings[0]!.run_id, '--db', store, '--format', 'table']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^\s*-600 ms  /m);
    expect(table.stdout).toMatch(/^\s*\+0 ms  .*Stop$/m);
    expect(table.stdout).toMatch(/\+300 ms  .*send_email COMMIT \(irreversible\)  ← ghost/);
    expect(table.stdout).toMatch(/cancel depth\s+3 of 4/);
    expect(table.stdout).not.toMatch(ansi);
    expect(run('explain', ['1', '--db', store, '--format', 'table'], { FORCE_COLOR: '1' }).stdout).toMatch(ansi);
    expect(run('explain', ['1', '--db', store, '--format', 'table'], { FORCE_COLOR: '1', NO_COLOR: '1' }).stdout).not.toMatch(ansi);
  });

  it('Markdown for a ticket and a self-contained HTML page, by --out’s extension', () => {
    const md = run('explain', ['1', '--db', store, '--out', path.join(dir, 'ticket.md')]);
    expect(md.status).toBe(0);
    expect(md.stdout).toBe('');
    expect(fs.readFileSync(path.join(dir, 'ticket.md'), 'utf8')).toMatch(/^## Finding: ghost\\_commit/);
    const html = run('explain', ['1', '--db', store, '--out', path.join(dir, 'run.html')]);
    expect(html.status).toBe(0);
    const page = fs.readFileSync(path.join(dir, 'run.html'), 'utf8');
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(page).toContain('<svg class="timeline"');
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
  });

  it('trace files given read into the store first; a trace id draws each of its runs', () => {
    const replay = report.findings.find((f) => f.kind === 'replay_duplicate')!;
    const out = run('explain', [replay.trace_id, path.join(golden, 'g5-replay.jsonl'), '--db', ':memory:']);
    expect(out.status).toBe(0);
    const e = JSON.parse(out.stdout) as Explanation;
    expect(e.timelines.length).toBeGreaterThanOrEqual(1);
    expect(e.timelines.every((t) => t.trace_id === replay.trace_id)).toBe(true);
  });

  it('no paths: for a run or trace id, the folder the instrumentation writes is read when it exists; for a finding number, the store as it is', () => {
    const traces = path.join(dir, 'traces');
    fs.mkdirSync(traces);
    fs.copyFileSync(path.join(golden, 'g2-ghost-email.jsonl'), path.join(traces, 'g2.jsonl'));
    const out = run('explain', ['00000000000000000000000000000006', '--db', ':memory:'], { AFTERSTOP_TRACES_DIR: traces });
    expect(out.status, out.stderr).toBe(0);
    expect((JSON.parse(out.stdout) as Explanation).timelines[0]?.items.some((i) => i.kind === 'commit' && i.ghost === 'known')).toBe(true);
    // New spans read first would renumber the findings leak-report printed.
    const numbered = run('explain', ['1', '--db', ':memory:'], { AFTERSTOP_TRACES_DIR: traces });
    expect(numbered.status).toBe(2);
    expect(numbered.stderr).toBe('afterstop: finding 1: the report has no findings in this window\n');
  });

  it('exit 2 with one clear line for an id or a finding the store does not hold, and for bad usage', () => {
    const missing = run('explain', ['4bf92f3577b34da6a3ce929d0e0e4736', '--db', store]);
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(`afterstop: "4bf92f3577b34da6a3ce929d0e0e4736": no run or trace of that id in the store ${store}; give a run id or a trace id as the report shows them, or a finding number\n`);
    const beyond = run('explain', ['99', '--db', store]);
    expect(beyond.status).toBe(2);
    expect(beyond.stderr).toBe(`afterstop: finding 99: the report has only ${report.findings.length} finding(s) in this window\n`);
    expect(run('explain', ['1', '--db', store, '--format', 'arrow']).status).toBe(2);
    expect(run('explain', ['1', '--db', store, '--out', path.join(dir, 'x.arrow')]).status).toBe(2);
    expect(run('explain', [], {}).status).toBe(2);
    expect(run('explain', ['1', path.join(dir, 'no-such-file.jsonl'), '--db', ':memory:']).status).toBe(2);
  });
});

describe('leak-report draws the worst findings’ runs', () => {
  it('in the HTML report by default, none with --timelines 0; in the JSON only when asked', () => {
    const html = run('leak-report', [golden, '--db', ':memory:', '--format', 'html']).stdout;
    // Five runs, and the next run of the ghost email's conversation beside it.
    expect(html.match(/<svg class="timeline[ "]/g)?.length).toBe(6);
    expect(html).toContain('href="#timeline-1"');
    expect(run('leak-report', [golden, '--db', ':memory:', '--format', 'html', '--timelines', '0']).stdout).not.toContain('<svg class="timeline"');
    expect((JSON.parse(run('leak-report', [golden, '--db', ':memory:']).stdout) as LeakReport).timelines).toBeUndefined();
    const asked = JSON.parse(run('leak-report', [golden, '--db', ':memory:', '--timelines', '2']).stdout) as LeakReport;
    expect(asked.timelines?.map((t) => t.run_id)).toEqual([report.findings[0]!.run_id, report.findings[1]!.run_id]);
  });
});
