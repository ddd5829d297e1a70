import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { describe, expect, it } from 'vitest';
import { benchClickHouse, loadSql } from '../../bench/clickhouse.js';
import { generateTraces } from '../../bench/generate-traces.js';
import { ClickHouseSource, clickhouseReport, GENAI_PRICES_VERSION } from '../../analyzer/index.js';
import { otelTracesRows, tracesTableDdl } from '../helpers/otel-traces.js';

const DDL = fs.readFileSync(fileURLToPath(new URL('../fixtures/clickhouse/otel_traces.sql', import.meta.url)), 'utf8');

// `npm run bench` reports the figures; this checks, on a small run, that the ClickHouse benchmark's table holds
// the generated spans as the exporter writes them and that it measures the report and its floor.
describe('ClickHouse benchmark', () => {
  it("loads the generated traces as the exporter's rows: the same report as from the rows the tests write", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-ch-'));
    const client = createClient({ connection: createChdbConnection({ path: ':memory:' }) as never });
    try {
      const file = path.join(dir, 't.jsonl');
      const spans = generateTraces(file, 2000);
      await client.command({ query: 'CREATE DATABASE IF NOT EXISTS otel' });
      for (const table of ['bench_loaded', 'bench_reference']) await client.command({ query: tracesTableDdl(DDL, table, 'map') });
      await client.command({ query: loadSql(file).replace('INSERT INTO otel.otel_traces', 'INSERT INTO otel.bench_loaded') });
      await client.insert({ table: 'otel.bench_reference', values: otelTracesRows([file]), format: 'JSONEachRow' });
      // Row for row the same (test/helpers/otel-traces.ts: the exporter's rows of OTLP/JSON).
      const rows = async (table: string): Promise<unknown[]> => (await client.query({ query: `SELECT * FROM otel.${table} ORDER BY TraceId, SpanId`, format: 'JSONEachRow' })).json();
      const loaded = await rows('bench_loaded');
      expect(loaded).toHaveLength(spans);
      expect(loaded).toEqual(await rows('bench_reference'));
      const options = { now: new Date(), pricesSource: `@pydantic/genai-prices ${GENAI_PRICES_VERSION}` };
      const report = await clickhouseReport(new ClickHouseSource(client, { database: 'otel', table: 'bench_loaded' }), options);
      expect(report.totals.runs).toBeGreaterThan(0);
      expect(report.totals.ghost_commits).toBe(report.totals.cancelled_runs);
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('measures the report and the floor in child processes, alternating, and keeps the loaded table for the next run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-ch-'));
    try {
      const first = await benchClickHouse(1000, dir, 2);
      expect(first.load.cached).toBe(false);
      expect(first.reportSeconds).toHaveLength(2);
      expect(first.floorSeconds).toHaveLength(2);
      for (const m of [first.report, first.floor]) {
        expect(m.seconds).toBeGreaterThan(0);
        expect(m.cpuSeconds).toBeGreaterThan(0);
        expect(m.peakRssMb).toBeGreaterThan(0);
      }
      expect(first.ratio).toBeCloseTo(first.report.seconds / first.floor.seconds, 9);
      expect(first.cpuRatio).toBeCloseTo(first.report.cpuSeconds / first.floor.cpuSeconds, 9);
      expect(first.statements.map((s) => s.file)).toContain('clickhouse/spans.sql');
      const again = await benchClickHouse(1000, dir, 1);
      expect(again.load).toEqual({ ...first.load, cached: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Eight children, each starting ClickHouse.
  }, 240_000);
});
