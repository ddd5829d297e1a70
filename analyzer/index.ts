/**
 * afterstop's analyzer API. This release reads OTLP/JSON trace files into
 * flat spans; the DuckDB leak analysis builds on it.
 */
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
