import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { traces } from '../../../../test/helpers/trace-builder.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/**
 * Hostile trace content (markup and script, terminal escape sequences, SQL
 * fragments, path traversal) in the names a trace gives (service, agent,
 * conversation, tool, model, framework, error text) comes out as inert text
 * in every output format of the built CLI, and cannot reach outside the store.
 */
const cli = cliPath;
const SCRIPT = '<script>alert(1)</script>';
const ESC = '\u001b[2J\u001b]0;pwned\u0007';
const SQL = "x'); DROP TABLE span_files; --";
const TRAVERSAL = '../../../tmp/afterstop-escape';

let dir: string;
let file: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-hostile-'));
  const t = traces();
  const r = t.run({ service: TRAVERSAL, agent: `${SCRIPT}${ESC}`, framework: SQL, conversation: `${SQL}|${ESC}`, startMs: 0, endMs: 1000, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.tool({ name: `${ESC}${SCRIPT}`, callId: `${SQL}`, startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
  r.commit({ callId: SQL, atMs: 300 });
  r.model({ startMs: 20, endMs: 600, model: `${SQL}${ESC}`, input: 100, output: 50, afterCancel: 20 });
  file = t.write();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['NO_COLOR', 'FORCE_COLOR'].includes(k)));
  return spawnSync(process.execPath, [cli, 'leak-report', file, ...args], { encoding: 'utf8', env, timeout: 60_000 });
}

describe('hostile trace content', () => {
  it('json: every string exactly as the trace gave it', () => {
    const out = run(['--db', ':memory:', '--format', 'json']);
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout) as LeakReport;
    expect(report.groups[0]).toMatchObject({ service: TRAVERSAL, agent: `${SCRIPT}${ESC}`, framework: SQL });
    expect(report.totals.ghost_commits_by_tool[0]?.tool).toBe(`${ESC}${SCRIPT}`);
  });

  it('table and markdown: no escape sequence from the trace reaches the terminal; markup is text', () => {
    for (const format of ['table', 'markdown']) {
      const out = run(['--db', ':memory:', '--format', format]);
      expect(out.status, format).toBe(0);
      expect(out.stdout, format).not.toContain('\u001b');
      expect(out.stdout, format).not.toContain('\u0007');
      if (format === 'markdown') expect(out.stdout).not.toContain('<script>');
    }
  });

  it('html: no script, no markup from the trace', () => {
    const out = run(['--db', ':memory:', '--format', 'html']);
    expect(out.status).toBe(0);
    expect(out.stdout).not.toMatch(/<script/i);
    expect(out.stdout).toContain('&lt;script&gt;');
  });

  it('arrow and Prometheus: the strings as data; the exposition format stays well formed', () => {
    const arrow = path.join(dir, 'r.arrow');
    const prom = path.join(dir, 'r.prom');
    const out = run(['--db', ':memory:', '--format', 'arrow', '--out', arrow, '--prometheus-file', prom]);
    expect(out.status).toBe(0);
    const groups = tableFromIPC(fs.readFileSync(arrow))
      .toArray()
      .map((r) => r.toJSON() as Record<string, unknown>);
    expect(groups.some((g) => g['service'] === TRAVERSAL)).toBe(true);
    for (const line of fs.readFileSync(prom, 'utf8').split('\n').filter(Boolean)) {
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .*|\w+(\{(\w+="([^"\\\n]|\\.)*",?)*\})? [-+\d.eE]+|\w+(\{.*\})? (NaN|[+-]Inf))$/);
      expect(line).not.toContain('\u001b');
    }
  });

  it('the store: a service named with ../ stays inside it, and SQL in the content is data: a second report gives the same figures', () => {
    const db = path.join(dir, 'store');
    const first = JSON.parse(run(['--db', db, '--format', 'json']).stdout) as LeakReport;
    fs.appendFileSync(file, '\n');
    const second = JSON.parse(run(['--db', db, '--format', 'json']).stdout) as LeakReport;
    expect(second.input.files_read).toBe(1);
    expect(second.totals).toEqual(first.totals);
    expect(fs.existsSync(path.resolve(db, 'spans', 'day=2026-09-21', '../../../tmp/afterstop-escape'))).toBe(false);
    expect(fs.existsSync('/tmp/afterstop-escape')).toBe(false);
    const files = (fs.readdirSync(path.join(db, 'spans'), { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(path.resolve(db, 'spans', f).startsWith(path.join(db, 'spans') + path.sep)).toBe(true);
  });
});
