/** The shapes of OTLP/JSON trace lines (an ExportTraceServiceRequest per line) that the test helpers convert. */
export type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number | string;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
export type KeyValue = { key: string; value?: AnyValue };
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name?: string;
  kind?: number | string;
  traceState?: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { timeUnixNano: string; name?: string; attributes?: KeyValue[] }[];
  status?: { code?: number | string; message?: string };
}
export interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string; version?: string }; spans?: OtlpSpan[] }[] }[];
}

/** OTLP kind and status code enum names, as their numbers. */
export const SPAN_KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
export const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];
export const kindNumber = (k: number | string | undefined): number => (typeof k === 'number' ? k : Math.max(0, SPAN_KINDS.indexOf(k ?? '')));
export const statusNumber = (c: number | string | undefined): number => (typeof c === 'number' ? c : Math.max(0, STATUS_CODES.indexOf(c ?? '')));
