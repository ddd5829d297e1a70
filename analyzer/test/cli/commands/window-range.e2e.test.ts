import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { clickhouseHttp, type ClickHouseHttp } from '../../../../test/helpers/clickhouse-http.js';
import { runCli, type CliResult } from '../../../../test/helpers/cli.js';

/**
 * --since / --until far from now (year 9999, 1900), the built CLI over the golden traces, as files (DuckDB)
 * and in ClickHouse: one rule for both. Times past what ns since the epoch can hold (2262-04-11) are taken
 * as that end, times before 1970 as 1970: --until 9999-12-31 is every run, --since 9999-01-01 none.
 */
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
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

const run = (args: string[]): Promise<CliResult> => runCli(['leak-report', '--no-progress', '--format', 'json', ...args]);

const sources = { duckdb: () => [...files, '--db', ':memory:'], clickhouse: () => ['--clickhouse', server.url] };

// One CLI run per test: a report through ClickHouse's HTTP interface takes seconds under CI's load, and six in
// one test came near the test's time limit.
describe.each(Object.entries(sources))('--since / --until at the ends of time: %s', (_name, source) => {
  let runs = 0;
  beforeAll(async () => {
    const all = await run(source());
    expect(all.status, all.stderr).toBe(0);
    runs = (JSON.parse(all.stdout) as LeakReport).totals.runs;
  });

  it('with no window there are runs to compare against', () => {
    expect(runs).toBeGreaterThan(0);
  });

  for (const window of [
    ['--until', '9999-12-31'],
    ['--since', '1900-01-01'],
    ['--since', '1900-01-01', '--until', '9999-12-31'],
  ]) {
    it(`${window.join(' ')}: every run, exit 0`, async () => {
      const out = await run([...source(), ...window]);
      expect(out.status, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as LeakReport).totals.runs).toBe(runs);
    });
  }

  it('--since 9999-01-01: no run, exit 0', async () => {
    const none = await run([...source(), '--since', '9999-01-01']);
    expect(none.status, none.stderr).toBe(0);
    expect((JSON.parse(none.stdout) as LeakReport).totals.runs).toBe(0);
    // ClickHouse reads only the window's days (none: no span), the store has them all (no run in the window).
    expect((JSON.parse(none.stdout) as LeakReport).evidence.status).toMatch(/^no_(runs|spans)$/);
  });

  it('--since 9999-01-01 with a budget: exit 3 (nothing to judge), not a pass', async () => {
    const judged = await run([...source(), '--since', '9999-01-01', '--max-ghost-commits', '0']);
    expect(judged.status, judged.stderr).toBe(3);
  });
});
