import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../../index.js';
import { clickhouseHttp, type ClickHouseHttp } from '../../../../test/helpers/clickhouse-http.js';
import { runCli, type CliResult } from '../../../../test/helpers/cli.js';

/**
 * `afterstop leak-report --clickhouse URL`, the built CLI, against ClickHouse's
 * HTTP interface (the engine embedded behind it, test/helpers/clickhouse-http.ts)
 * holding the golden traces as the Collector's exporter writes them.
 */
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;
const files = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => `${golden}${f}`);

let server: ClickHouseHttp;
beforeAll(async () => {
  server = await clickhouseHttp({ otel_traces: { files } });
});
afterAll(async () => {
  await server?.close();
});

/** The CLI in a child process (async: the server answers from this process). */
const run = (args: string[]): Promise<CliResult> => runCli(['leak-report', ...args]);

describe('leak-report --clickhouse', () => {
  it('the report of the traces in ClickHouse equals the report of the same traces as files; only aggregates come back', async () => {
    server.statements.length = 0;
    const out = await run(['--clickhouse', server.url, '--table', 'otel.otel_traces', '--prices', prices]);
    expect(out.stderr).toContain('computing the report in ClickHouse at http://127.0.0.1:');
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout) as LeakReport;
    const fromFiles = await analyze({ inputs: files, db: ':memory:', pricesFile: prices });
    // The CLI's JSON adds the verdict (render/verdict.ts) after the evidence; the figures are the analysis's.
    const { input: _a, verdict, ...click } = report;
    expect(verdict?.status).toBe('attention');
    const { input: _b, ...duck } = fromFiles;
    expect(click).toEqual(duck);
    // The traces table is read only by statements that keep what they read in the database.
    const sent = server.statements.filter((s) => s.rows).map((s) => s.sql);
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.some((sql) => sql.includes('{database:Identifier}'))).toBe(false);
    expect(server.statements.find((s) => s.sql.includes('{database:Identifier}'))?.rows).toBe(false);
  });

  it('budgets judge it as they judge files: exit 1, the broken budget on stderr', async () => {
    const out = await run(['--clickhouse', server.url, '--prices', prices, '--max-ghost-commits', '0', '--format', 'json']);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('budget exceeded: --max-ghost-commits 0, the report has 1');
  });

  it('exit 2, saying where and what, for a table that is not there, a server that does not answer, or paths beside --clickhouse; no password in the message', async () => {
    const withPassword = server.url.replace('http://', 'http://reader:s3cret@');
    const missing = await run(['--clickhouse', withPassword, '--table', 'otel.nope']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/ClickHouse at http:\/\/127\.0\.0\.1:\d+, table otel\.nope: .*nope/);
    expect(missing.stderr).not.toContain('s3cret');
    const down = await run(['--clickhouse', 'http://127.0.0.1:1', '--table', 'otel.otel_traces']);
    expect(down.status).toBe(2);
    expect(down.stderr).toContain('ClickHouse at http://127.0.0.1:1');
    const both = await run([golden, '--clickhouse', server.url]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('give trace paths, or --clickhouse URL (not both)');
    // Neither: leak-report reads the default folder, here absent (run in an empty folder, AFTERSTOP_TRACES_DIR
    // unset: the repository's root has ./afterstop-traces once `npm start` has run the demo).
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-neither-'));
    try {
      const neither = await runCli(['leak-report'], { cwd: empty, env: { AFTERSTOP_TRACES_DIR: '' } });
      expect(neither.status).toBe(2);
      expect(neither.stderr).toContain('afterstop-traces: no such folder');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
