import { memoryLimitSetting } from '@afterstop/analyzer';
import { benchAnalyzer, type AnalyzerBench } from '../analyzer.js';
import { benchClickHouse, type ClickHouseBench } from '../clickhouse.js';
import { growthRow, ratioRow, valueRow } from '../results.js';
import { benchSizes, count as spans, type Section } from './section.js';

/**
 * The analyzer over BENCH_SPANS generated spans (each measurement in its own process): the cold ingest and the
 * report against the floors DuckDB sets; then the leak model inside ClickHouse (chdb) at the same sizes.
 */
export const ANALYZER_SECTIONS: Section[] = [
  {
    name: 'analyzer',
    run({ work, rows, details, progress, spansMeasured }) {
      const analyzer: AnalyzerBench[] = benchSizes().map((n) => {
        progress(`the analyzer over ${n} spans`);
        return benchAnalyzer(n, work);
      });
      if (analyzer.length === 0) return;
      spansMeasured.push(...analyzer.map((a) => a.spans));
      details['analyzer'] = analyzer;
      details['memoryLimit'] = memoryLimitSetting();
      for (const a of analyzer) {
        // Against the floor: DuckDB keeping the same read in a database file, with no leak model (bench/analyzer.ts).
        rows.push(
          ratioRow(
            {
              id: `ingest-report-${a.spans}`,
              work: `ingest + report, cold, ${spans(a.spans)} spans of OTLP/JSON (${a.inputMb.toFixed(0)} MB)`,
              value: a.cold.seconds,
              unit: 's',
              baseline: 'the bare typed read_json kept in a DuckDB database file (no leak model)',
              baselineValue: a.bareReadIntoFile.seconds,
              peakRssMb: a.cold.peakRssMb,
            },
            1.3,
          ),
        );
        // Against the contract's floor: afterstop's own read, the model's columns taken out, kept and nothing more
        // (bench/analyzer.ts contractRead). No target: it says what of the ingest is afterstop's own work.
        rows.push(
          ratioRow(
            {
              id: `ingest-report-over-contract-floor-${a.spans}`,
              work: `the same ingest + report against the contract's floor`,
              value: a.cold.seconds,
              unit: 's',
              baseline: "afterstop's read (the model's columns taken out of each span) kept in a DuckDB database file, no duplicate removed, run assigned, fact or Parquet",
              baselineValue: a.contractRead.seconds,
              peakRssMb: a.cold.peakRssMb,
            },
            null,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `contract-floor-${a.spans}`,
              work: `the contract's floor: what taking the model's columns out of each span adds to keeping the read`,
              value: a.contractRead.seconds,
              unit: 's',
              baseline: 'the floor (the bare typed read_json kept in a DuckDB database file)',
              baselineValue: a.bareReadIntoFile.seconds,
              peakRssMb: a.contractRead.peakRssMb,
            },
            null,
          ),
        );
        // What keeping costs the engine itself: the floor against the same read held in memory.
        rows.push(
          ratioRow(
            {
              id: `bare-read-into-file-${a.spans}`,
              work: `the floor: the same bare read_json kept in a DuckDB database file (the engine's own cost of keeping what it read)`,
              value: a.bareReadIntoFile.seconds,
              unit: 's',
              baseline: 'the bare typed read_json, in memory',
              baselineValue: a.bareRead.seconds,
              peakRssMb: a.bareReadIntoFile.peakRssMb,
            },
            null,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `bare-read-into-parquet-${a.spans}`,
              work: `the same bare read_json kept as Parquet (no leak model)`,
              value: a.bareReadIntoParquet.seconds,
              unit: 's',
              baseline: 'a bare typed read_json',
              baselineValue: a.bareRead.seconds,
              peakRssMb: a.bareReadIntoParquet.peakRssMb,
            },
            null,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `report-store-${a.spans}`,
              work: `report from the store, ${spans(a.spans)} spans (${a.parquetMb.toFixed(0)} MB of Parquet)`,
              value: a.warm.seconds,
              unit: 's',
              baseline: "a bare scan of the store's Parquet",
              baselineValue: a.bareScan.seconds,
              peakRssMb: a.warm.peakRssMb,
            },
            2,
          ),
        );
      }
      const largest = analyzer[analyzer.length - 1];
      if (largest !== undefined) {
        const peak = Math.max(largest.cold.peakRssMb, largest.warm.peakRssMb);
        const measured = {
          work: `peak memory, ingest or report, ${spans(largest.spans)} spans`,
          value: peak,
          unit: 'MB' as const,
          baseline: 'the bare read_json',
          baselineValue: largest.bareRead.peakRssMb,
          peakRssMb: peak,
        };
        // The target is at 10,000,000 spans; a smaller run's peak is a row of its own (no target), so that a partial
        // run at 1,000,000 does not take the place of the row that measured it.
        rows.push(
          largest.spans >= 10_000_000 ? valueRow({ id: 'analyzer-peak-memory', ...measured }, { text: '< 1024 MB', met: (v) => v < 1024 }) : ratioRow({ id: `analyzer-peak-memory-${largest.spans}`, ...measured }, null),
        );
      }
      if (analyzer.length > 1) {
        const [small, large] = [analyzer[0]!, largest!];
        rows.push(growthRow('growth-ingest', 'ingest + report', { spans: small.spans, seconds: small.cold.seconds }, { spans: large.spans, seconds: large.cold.seconds }));
        rows.push(growthRow('growth-report', 'report from the store', { spans: small.spans, seconds: small.warm.seconds }, { spans: large.spans, seconds: large.warm.seconds }));
      }
    },
  },
  {
    // The leak model inside ClickHouse (bench/clickhouse.ts): chdb over the exporter's table, at the analyzer's sizes.
    name: 'clickhouse',
    async run({ work, rows, details, progress }) {
      const clickhouse: ClickHouseBench[] = [];
      for (const n of benchSizes()) {
        progress(`the leak model inside ClickHouse (chdb) over ${n} spans`);
        clickhouse.push(await benchClickHouse(n, work, Number(process.env['BENCH_CLICKHOUSE_ROUNDS'] ?? 3)));
      }
      if (clickhouse.length > 0) details['clickhouse'] = clickhouse;
      for (const c of clickhouse) {
        const keys = c.columnsRead.reduce((n, r) => n + r.keys.length, 0);
        rows.push(
          ratioRow(
            {
              id: `clickhouse-report-${c.spans}`,
              work: `the leak report inside ClickHouse (chdb, on disk), ${spans(c.spans)} spans in the exporter's otel_traces (${c.load.tableMb.toFixed(0)} MB), through ClickHouseSource, median of ${c.rounds} alternating rounds`,
              value: c.report.seconds,
              unit: 's',
              baseline: `a bare scan of what the model reads (${c.columnsRead.length} columns, ${keys} keys of their maps)`,
              baselineValue: c.floor.seconds,
              peakRssMb: c.report.peakRssMb,
            },
            2,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `clickhouse-report-cpu-${c.spans}`,
              work: `the same, CPU time of the process (all of ClickHouse's threads): less moved than wall time by other work on the machine`,
              value: c.report.cpuSeconds,
              unit: 's',
              baseline: 'the bare scan',
              baselineValue: c.floor.cpuSeconds,
              peakRssMb: null,
            },
            null,
          ),
        );
      }
      if (clickhouse.length > 1) {
        const [small, large] = [clickhouse[0]!, clickhouse[clickhouse.length - 1]!];
        rows.push(growthRow('growth-clickhouse-report', 'the leak report inside ClickHouse', { spans: small.spans, seconds: small.report.seconds }, { spans: large.spans, seconds: large.report.seconds }));
      }
    },
  },
];
