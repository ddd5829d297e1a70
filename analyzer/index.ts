/**
 * afterstop's analyzer: the leak report of docs/spec/METRICS.md, computed by
 * DuckDB over exported trace files (traceFilesSource, analyze) or inside
 * ClickHouse over the Collector exporter's table (clickhouseReportSource).
 */
export { analyze, DEFAULT_DB, ingestInto, type AnalyzeOptions } from './analyze.js';
export { InputError } from './errors.js';
export { explain, parseExplainTarget, type ExplainOptions } from './explain.js';
export { ingest, type IngestSummary } from './ingest/ingest.js';
export { discoverTraceFiles, type TraceFile } from './ingest/discover.js';
export { loadPrices, parsePriceTable, userPrice, type ModelPrice, type PriceTable } from './prices.js';
export { GENAI_PRICES_VERSION, genaiPrice, resolvePrices, type PriceKey, type PriceRow } from './resolve-prices.js';
export { buildReport, type ReportOptions } from './report.js';
export { clickhouseReportSource, traceFilesSource, type ReportRequest, type ReportSource } from './report-source.js';
export { clickhouseReport } from './clickhouse/report.js';
export { ClickHouseSource, parseTable, type ClickHouseTable } from './clickhouse/source.js';
export { QueryColumnError } from './sql/typed-rows.js';
export { Store, withStore } from './store.js';
export * from './types.js';
export {
  decodeAnyValue,
  decodeAttributes,
  flattenRequest,
  readOtlpJsonLines,
  readTraces,
  type AttributeValue,
  type FlatSpan,
  type ReadResult,
  type SkippedLine,
} from './ingest/otlp-json.js';
export { memoryLimitSetting } from './store-memory.js';
export { FAST_PATH_MAX_LINE } from './ingest/ingest.js';
export { escapeHtml, pageStart } from './render/html.js';
export { colorWanted, renderTerminal } from './render/terminal.js';
export { EXIT_BUDGET, EXIT_INTERNAL, EXIT_NOTHING_TO_JUDGE, EXIT_OK, EXIT_STORAGE, EXIT_USAGE, type ExitCode } from './cli/exit-codes.js';
