import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseHttp, type ClickHouseHttp } from '../../../../test/helpers/clickhouse-http.js';
import { runCli } from '../../../../test/helpers/cli.js';

/**
 * `leak-report --clickhouse URL` loads no DuckDB: the report source loads each engine when asked
 * (report-source.ts), so the ClickHouse path never loads DuckDB's client nor its native module (the
 * analyzer's ClickHouse path must install and run without it). Seen from inside the CLI's process: a
 * module loaded with --import records, at exit, every module URL resolved after it (module.registerHooks)
 * and the shared objects the process holds (process.report).
 */
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const files = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => `${golden}${f}`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-engines-'));
const hook = path.join(dir, 'record-loaded.mjs');
fs.writeFileSync(
  hook,
  `
import * as fs from 'node:fs';
import * as module from 'node:module';
const resolved = [];
module.registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
process.on('exit', () => {
  const sharedObjects = process.report.getReport().sharedObjects;
  fs.writeFileSync(process.env.RECORD_LOADED_TO, JSON.stringify({ resolved, sharedObjects }));
});
`,
);

interface Loaded {
  resolved: string[];
  sharedObjects: string[];
}

/** The CLI run with the recording hook: its exit status and what its process loaded. */
async function loadedBy(args: string[], name: string): Promise<{ status: number | null; stderr: string; loaded: Loaded }> {
  const record = path.join(dir, `${name}.json`);
  const out = await runCli(args, { env: { NODE_OPTIONS: `--import ${pathToFileURL(hook).href}`, RECORD_LOADED_TO: record } });
  return { status: out.status, stderr: out.stderr, loaded: JSON.parse(fs.readFileSync(record, 'utf8')) as Loaded };
}

const duckdb = (loaded: Loaded): string[] => [...loaded.resolved, ...loaded.sharedObjects].filter((p) => /duckdb/i.test(p));

let server: ClickHouseHttp;
beforeAll(async () => {
  server = await clickhouseHttp({ otel_traces: { files } });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('leak-report --clickhouse loads no DuckDB', () => {
  it("reports from ClickHouse without resolving @duckdb/* or loading DuckDB's native module (nor apache-arrow, prom-client)", async () => {
    const { status, stderr, loaded } = await loadedBy(['leak-report', '--clickhouse', server.url, '--format', 'json', '--prices', `${golden}prices.json`], 'clickhouse');
    expect(status, stderr).toBe(0);
    // The hook saw the run: the ClickHouse client and the analyzer's ClickHouse modules were resolved.
    expect(loaded.resolved.some((url) => url.includes('/@clickhouse/client/'))).toBe(true);
    expect(loaded.resolved.some((url) => url.endsWith('/dist/clickhouse/report.js'))).toBe(true);
    expect(duckdb(loaded)).toEqual([]);
    expect(loaded.resolved.filter((url) => /\/node_modules\/(apache-arrow|prom-client)\//.test(url))).toEqual([]);
  });

  it('while the same report over trace files does load it (the recording sees DuckDB when it is there)', async () => {
    const { status, stderr, loaded } = await loadedBy(['leak-report', ...files, '--db', ':memory:', '--format', 'json'], 'files');
    expect(status, stderr).toBe(0);
    expect(loaded.resolved.some((url) => url.includes('/@duckdb/node-api/'))).toBe(true);
    expect(loaded.sharedObjects.some((p) => /duckdb.*\.node$/i.test(p))).toBe(true);
    expect(loaded.resolved.some((url) => url.includes('/@clickhouse/client/'))).toBe(false);
  });
});
