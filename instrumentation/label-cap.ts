import type { AttributeValue } from '@opentelemetry/api';

/**
 * The live metrics' label values, bounded (live-metrics.ts). A metric keeps every distinct set of labels
 * it saw for the process's life: tool and agent names of 100 KB, each new, held 1.2 GB. So:
 * - a value is at most {@link MAX_LABEL_CHARS} characters: a longer one is cut there and ends with
 *   {@link CUT_MARK};
 * - an attribute takes at most {@link MAX_LABEL_VALUES} distinct values for the process's life: every value
 *   after that is {@link OVERFLOW_LABEL}.
 * At most MAX_LABEL_VALUES × MAX_LABEL_CHARS characters per attribute, whatever the app names its tools.
 */
export const MAX_LABEL_CHARS = 128;
export const MAX_LABEL_VALUES = 200;
export const CUT_MARK = '…';
export const OVERFLOW_LABEL = 'other';

const seen = new Map<string, Set<string>>();

/** `value` as a label of attribute `key`: cut to {@link MAX_LABEL_CHARS}, or {@link OVERFLOW_LABEL} past {@link MAX_LABEL_VALUES} values. */
export function capLabel(key: string, value: AttributeValue | undefined): AttributeValue {
  if (value === undefined) return OVERFLOW_LABEL;
  if (typeof value !== 'string') return typeof value === 'object' ? OVERFLOW_LABEL : value;
  const text = value.length > MAX_LABEL_CHARS ? `${value.slice(0, MAX_LABEL_CHARS - CUT_MARK.length)}${CUT_MARK}` : value;
  let values = seen.get(key);
  if (values === undefined) {
    values = new Set();
    seen.set(key, values);
  }
  if (values.has(text)) return text;
  if (values.size >= MAX_LABEL_VALUES) return OVERFLOW_LABEL;
  values.add(text);
  return text;
}
