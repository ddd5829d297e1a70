import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { clickhouseHttp, type ClickHouseHttp } from '../../../../test/helpers/clickhouse-http.js';
import { BASE_NS, traces } from '../../../../test/helpers/trace-builder.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/**
 * Runs stamped in years 2100 and 2200 (clock skew, bad data) beside a run of the last hour, the built CLI, as
 * files (the store) and in ClickHouse: they are in no window (`--since 24h` does not judge them every night),
 * the report counts and names them (evidence.future_runs, stderr), and `afterstop prune` removes them.
 * ClickHouse may not read a span after 2149 by time (the exporter's table is partitioned by toDate, whose
 * range ends in 2149-06; a lone 2200 partition is pruned from a time range), so there the 2100 run is the
 * one asserted.
 */
const cli = cliPath;
const BASE_MS = Number(BASE_NS / 1_000_000n);
const FUTURE = Date.UTC(2100, 0, 1, 12);
const FAR = Date.UTC(2200, 0, 1, 12);

let file: string;
let dir: string;
let server: ClickHouseHttp;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-future-'));
  const t = traces();
  // A clean run of the last hour.
  const recent = Date.now() - 3_600_000 - BASE_MS;
  t.run({ service: 'now', startMs: recent, endMs: recent + 1000, outcome: 'completed' });
  // A run stamped in 2200 with a ghost commit: it would break --max-ghost-commits 0 if it were judged.
  const at = FUTURE - BASE_MS;
  const r = t.run({ service: 'skewed', startMs: at, endMs: at + 1000, outcome: 'cancelled' });
  r.cancelRequest(at + 100);
  r.tool({ name: 'send_email', callId: 'c1', startMs: at + 50, endMs: at + 400, result: 'late', effect: 'irreversible' });
  r.commit({ callId: 'c1', atMs: at + 300 });
  const far = FAR - BASE_MS;
  const f = t.run({ service: 'skewed', startMs: far, endMs: far + 1000, outcome: 'cancelled' });
  f.cancelRequest(far + 100);
  f.tool({ name: 'send_email', callId: 'c2', startMs: far + 50, endMs: far + 400, result: 'late', effect: 'irreversible' });
  f.commit({ callId: 'c2', atMs: far + 300 });
  file = t.write();
  server = await clickhouseHttp({ otel_traces: { files: [file] } });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const sources = { duckdb: () => [file, '--db', path.join(dir, 'store')], clickhouse: () => ['--clickhouse', server.url] };

// One or two CLI runs per test: a report through ClickHouse's HTTP interface takes seconds under CI's load.
describe.each(Object.entries(sources))('a run stamped in the future: %s', (name, source) => {
  const expectFuture = (runs: number): void => {
    if (name === 'duckdb') expect(runs).toBe(2);
    else expect(runs).toBeGreaterThanOrEqual(1);
  };

  it('--since 24h: left out of the window and of the budgets (exit 0), counted and named in the report and on stderr', async () => {
    const out = await run('leak-report', [...source(), '--since', '24h', '--format', 'json', '--no-progress', '--max-ghost-commits', '0']);
    expect(out.status, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout) as LeakReport;
    expect(report.totals.runs).toBe(1);
    expect(report.totals.ghost_commits).toBe(0);
    const future = report.evidence.future_runs?.runs ?? 0;
    expectFuture(future);
    expect(report.evidence.future_runs?.examples[0]?.start).toBe(new Date(FUTURE).toISOString());
    expect(out.stderr).toMatch(new RegExp(`afterstop: ${future} runs? stamped in the future \\(starting after \\d{4}-.*\\), left out of the window, e\\.g\\. trace \\w+ run \\S+ at 2100-01-01T12:00:00\\.000Z`));
  });

  for (const format of ['table', 'markdown', 'html']) {
    it(`--since 24h --format ${format}: says so too`, async () => {
      const text = await run('leak-report', [...source(), '--since', '24h', '--format', format, '--no-progress']);
      expect(text.stdout).toMatch(/runs? stamped in the future \(starting after/);
    });
  }

  it('a window that names year 2200 does not judge it either', async () => {
    const until = await run('leak-report', [...source(), '--until', '9999-12-31', '--format', 'json', '--no-progress', '--max-ghost-commits', '0']);
    expect(until.status, until.stderr).toBe(0);
    expectFuture((JSON.parse(until.stdout) as LeakReport).evidence.future_runs?.runs ?? 0);
  });

  if (name === 'duckdb') {
    it('retention removes it: its day and its run; the next report has none in the future', async () => {
      const pruned = await run('prune', ['--older-than', '3650d', '--db', path.join(dir, 'store')]);
      expect(pruned.status, pruned.stderr).toBe(0);
      const summary = JSON.parse(pruned.stdout) as { days: string[]; runs: number };
      expect(summary.days).toEqual(['2100-01-01', '2200-01-01']);
      expect(summary.runs).toBe(2);
      const after = await run('leak-report', [...source(), '--since', '24h', '--format', 'json', '--no-progress']);
      expect(after.status, after.stderr).toBe(0);
      const report2 = JSON.parse(after.stdout) as LeakReport;
      expect(report2.evidence.future_runs ?? null).toBeNull();
      expect(report2.totals.runs).toBe(1);
    });
  }
});
