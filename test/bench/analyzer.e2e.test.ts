import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchAnalyzer } from '../../bench/analyzer.js';
import { generateTraces } from '../../bench/generate-traces.js';
import { analyze } from '../../analyzer/index.js';

// `npm run bench` reports the figures; this checks, on a small run, that the
// benchmark measures what it says and that its generated traces mean what they should.
describe('analyzer benchmark', () => {
  it('generates traces whose report has the runs and stops it planted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-'));
    try {
      const file = path.join(dir, 't.jsonl');
      const spans = generateTraces(file, 2000);
      expect(spans).toBeGreaterThanOrEqual(2000);
      const report = await analyze({ inputs: [file], db: ':memory:' });
      expect(report.input.skipped).toEqual([]);
      expect(report.input.spans_added).toBe(spans);
      expect(report.totals.cancelled_runs).toBe(Math.floor((report.totals.runs + 2) / 4));
      expect(report.totals.ghost_commits).toBe(report.totals.cancelled_runs);
      expect(report.totals.cancel_ack_ms.p50).toBe(20);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('measures the bare read, a cold and a warm report, and a bare scan of the store’s Parquet, in child processes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-'));
    try {
      const result = benchAnalyzer(1000, dir);
      for (const m of [result.bareRead, result.bareReadIntoFile, result.contractRead, result.cold, result.warm, result.bareScan]) {
        expect(m.seconds).toBeGreaterThan(0);
        expect(m.peakRssMb).toBeGreaterThan(0);
      }
      expect(result.parquetMb).toBeGreaterThan(0);
      expect(result.ratioToBareRead).toBeCloseTo(result.cold.seconds / result.bareRead.seconds, 9);
      expect(result.ratioToBareScan).toBeCloseTo(result.warm.seconds / result.bareScan.seconds, 9);
      // The contract's floor reads every span through afterstop's own read (store-files.sql), and is compared with
      // the floor and the ingest.
      const lines = fs.readFileSync(path.join(dir, 'traces-1000.jsonl'), 'utf8');
      expect(result.contractRead.rows).toBe(lines.match(/"spanId"/g)?.length);
      expect(result.ratioToContractRead).toBeCloseTo(result.cold.seconds / result.contractRead.seconds, 9);
      expect(result.contractReadRatioToFloor).toBeCloseTo(result.contractRead.seconds / result.bareReadIntoFile.seconds, 9);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('store-'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
