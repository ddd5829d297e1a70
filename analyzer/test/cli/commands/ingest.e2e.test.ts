import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../../../../test/helpers/cli.js';
import { LONG_RUN_ID, LONG_RUN_TRACE, writeLongRun } from '../../../../bench/generate-long-run.js';

/** `afterstop ingest` and `afterstop query`, the built CLI, over one store file. */
const cli = cliPath;
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
let dir: string;
let db: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-cli-ingest-'));
  db = path.join(dir, 'store');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const afterstop = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });

describe('afterstop ingest', () => {
  it('loads traces into the store and says what it read; a second run reads nothing new', () => {
    const first = afterstop('ingest', path.join(golden, '*.jsonl'), '--db', db);
    expect(first.status).toBe(0);
    const summary = JSON.parse(first.stdout) as Record<string, number>;
    expect(summary).toMatchObject({ files: 6, read: 6, skipped: 0 });
    expect(summary['spansAdded']).toBeGreaterThan(0);
    const again = JSON.parse(afterstop('ingest', path.join(golden, '*.jsonl'), '--db', db).stdout) as Record<string, number>;
    expect(again).toMatchObject({ files: 6, read: 0, spansAdded: 0 });
  });

  it('a path that does not exist is a usage error', () => {
    const out = afterstop('ingest', path.join(dir, 'nothing-here'), '--db', db);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/nothing-here/);
  });
});

describe('afterstop query', () => {
  it('lists the read-only queries; none that changes the store', () => {
    const out = afterstop('query');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^cancel-latency\s/m);
    expect(out.stdout).toMatch(/^findings\s+limit\s/m);
    expect(out.stdout).not.toMatch(/^(store-files|dedupe-spans|prepare-runs|schema)\s/m);
  });

  it('runs a query over the report tables with its parameters, in json, csv and markdown', () => {
    const json = afterstop('query', 'findings', '--db', db, '--param', 'limit=2', '--format', 'json');
    expect(json.status).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveProperty('trace_id');
    const csv = afterstop('query', 'ghost-commits-by-tool', '--db', db, '--format', 'csv');
    expect(csv.stdout.split('\r\n')[0]).toBe('service,agent,framework,total,tool,effect,ghost_commits,ghost_commits_inferred,ghost_commits_possible,commits_prevented');
    expect(csv.stdout).toContain('send_email,irreversible,');
    const md = afterstop('query', 'runs', '--db', db, '--format', 'markdown');
    expect(md.stdout.split('\n')[1]).toMatch(/^\| --- \|/);
  });

  it('a query over the window’s spans (run-timeline) reads them from the store’s files; a list parameter comma-separated', () => {
    const out = afterstop('query', 'run-timeline', '--db', db, '--param', 'runs=00000000000000000000000000000006:0000000000000007', '--format', 'json');
    expect(out.status, out.stderr).toBe(0);
    const rows = JSON.parse(out.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r['name'] === 'afterstop.tool.commit')).toMatchObject({ tool: 'send_email', ghost: 'known' });
  });

  it('a query over the facts takes the window of --since and --until, as leak-report does', () => {
    const steering = (...window: string[]) => {
      const out = afterstop('query', 'steering', '--db', db, '--format', 'json', ...window);
      expect(out.status, out.stderr).toBe(0);
      return (JSON.parse(out.stdout) as Record<string, unknown>[]).find((r) => r['total'] === true);
    };
    // g6-steering.expected.json: two injects, one dropped, one violation; the golden traces are from 2026-09.
    expect(steering()).toMatchObject({ inject_count: 2, dropped: 1, violations: 1 });
    expect(steering('--since', '2026-10-01T00:00:00Z')).toMatchObject({ inject_count: 0, dropped: 0, violations: 0 });
    expect(steering('--until', '2026-10-01T00:00:00Z')).toMatchObject({ inject_count: 2, dropped: 1, violations: 1 });
    const byHand = afterstop('query', 'steering', '--db', db, '--param', 'since_ns=0');
    expect(byHand.status).toBe(2);
    expect(byHand.stderr).toMatch(/since_ns is the window: give --since and --until/);
  });

  it('prints a long result as DuckDB reads it, chunk after chunk, as one JSON array or one CSV table', () => {
    // A run of 1,000 tool calls: its timeline is some 3,000 rows, more than one of DuckDB's chunks (2,048).
    const file = path.join(dir, 'long-run.jsonl');
    const longDb = path.join(dir, 'long-store');
    writeLongRun(file, 1_000);
    expect(afterstop('ingest', file, '--db', longDb).status).toBe(0);
    const runs = `runs=${LONG_RUN_TRACE}:${LONG_RUN_ID}`;
    const json = afterstop('query', 'run-timeline', '--db', longDb, '--param', runs, '--format', 'json');
    expect(json.status, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(2_048);
    // One array, indented throughout as a whole one would be, across the chunks' seams.
    expect(json.stdout).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    expect(new Set(rows.filter((r) => r['role'] === 'tool').map((r) => r['span_id'])).size).toBe(1_000);
    const csv = afterstop('query', 'run-timeline', '--db', longDb, '--param', runs, '--format', 'csv');
    expect(csv.status, csv.stderr).toBe(0);
    const lines = csv.stdout.split('\r\n');
    expect(lines[0]).toBe(Object.keys(rows[0]!).join(','));
    // Each row once (no field of these rows holds a line break), and nothing after the last.
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines.at(-1)).toBe('');
    // A row past the first chunk, field by field as JSON gave it (lists and objects as JSON text, NULL empty).
    const field = (v: unknown): string => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    const quoted = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    const at = 2_500;
    expect(lines[at + 1]).toBe(
      Object.values(rows[at]!)
        .map((v) => quoted(field(v)))
        .join(','),
    );
  });

  it('usage errors: an unknown or writing query, a parameter it does not take or of the wrong type, a missing one', () => {
    expect(afterstop('query', 'no-such-query', '--db', db).status).toBe(2);
    expect(afterstop('query', 'dedupe-spans', '--db', db).status).toBe(2);
    expect(afterstop('query', 'findings', '--db', db, '--param', 'limit=ten').stderr).toMatch(/limit must be an integer/);
    expect(afterstop('query', 'findings', '--db', db, '--param', 'nope=1').stderr).toMatch(/no parameter nope/);
    const missing = afterstop('query', 'findings', '--db', db);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--param limit=/);
  });
});
