import { query } from '../queries.js';
import { ASSIGN_STATEMENTS, FACT_STATEMENTS, SCOPE_FACTS } from '../facts.js';
import { assembleReport, loadReportPrices, PREPARE, reportParams, type ReportOptions, type ReportRows } from '../report-assembly.js';
import { LATEST_NS, toNs } from '../report-time.js';
import type { ModelCallPriceKeysRow, SpanCountRow } from '../sql/query-rows.js';
import type { LeakReport } from '../types.js';
import type { ClickHouseSource } from './source.js';
import { spansQuery, tracesSchema } from './traces-schema.js';

const DAY_NS = 86_400_000_000_000n;
/** The start of the UTC day of `ns`. */
const dayStart = (ns: bigint): bigint => ns - (((ns % DAY_NS) + DAY_NS) % DAY_NS);

/**
 * The leak report computed inside ClickHouse over the exporter's traces
 * table: the same queries as DuckDB's, in ClickHouse SQL, and the same report
 * JSON. The spans read are those of the window's UTC days and the day either
 * side, as DuckDB's store reads its day partitions (a run's spans may lie a
 * day from its start); a run is known from the spans read, so one that began
 * before them counts as unended.
 */
export async function clickhouseReport(source: ClickHouseSource, options: ReportOptions): Promise<LeakReport> {
  const since = toNs(options.since);
  const until = toNs(options.until);
  await source.run(spansQuery(await tracesSchema(source)), {
    since_ns: since === null ? 0n : dayStart(since) - DAY_NS,
    // Open: every span to the latest time a window takes (runs stamped in the future are read, to be named).
    until_ns: until === null ? LATEST_NS : dayStart(until) + 2n * DAY_NS,
  });
  for (const name of ASSIGN_STATEMENTS) await source.run(query(`clickhouse/${name}`));
  for (const name of [...FACT_STATEMENTS, ...SCOPE_FACTS]) await source.run(query(`clickhouse/${name}`));
  await loadReportPrices(
    (params) => source.typedRows<ModelCallPriceKeysRow>(query('clickhouse/model-call-price-keys'), params),
    (prices) => source.run(query('clickhouse/load-prices'), { prices }),
    options,
  );
  // The same chain as DuckDB's (report.ts), each step its ClickHouse twin, a temporary table of the session.
  const params = reportParams(options);
  for (const name of PREPARE) await source.run(query(`clickhouse/${name}`), params(name));
  const [count] = await source.typedRows<SpanCountRow>(query('clickhouse/span-count'));
  const spans = count?.n ?? 0;
  const rowsOf: ReportRows = (name, params) => source.typedRows(query(`clickhouse/${name}`), params ?? {});
  return assembleReport(
    rowsOf,
    options,
    {
      paths: [`ClickHouse table ${source.table.database}.${source.table.table}`],
      files: 0,
      files_read: 0,
      spans_read: spans,
      spans_added: 0,
      spans_in_store: spans,
      skipped: [],
      skipped_count: 0,
    },
    'clickhouse',
  );
}
