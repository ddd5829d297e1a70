/**
 * afterstop's analyzer: DuckDB turns exported traces into the leak report of
 * docs/spec/METRICS.md.
 */
export { analyze, DEFAULT_DB, ingestInto, type AnalyzeOptions } from './analyze.js';
export { InputError } from './errors.js';
export { ingest, type IngestSummary } from './ingest/ingest.js';
export { discoverTraceFiles, type TraceFile } from './ingest/discover.js';
export { loadPrices, parsePriceTable, type ModelPrice, type PriceTable } from './prices.js';
export { buildReport, type ReportOptions } from './report.js';
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
