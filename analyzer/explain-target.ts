import { InputError } from './errors.js';
import type { ExplainTarget } from './types.js';

/** `3` or `#3` is the report's third finding; anything else is a run id, a run key (`trace:run`) or a trace id. */
export function parseExplainTarget(text: string): ExplainTarget {
  const trimmed = text.trim();
  const number = /^#?(\d{1,9})$/.exec(trimmed);
  if (number !== null) {
    const n = Number(number[1]);
    if (n < 1) throw new InputError(`finding ${trimmed}: findings are numbered from 1`);
    return { finding: n };
  }
  if (trimmed === '') throw new InputError('give a run id, a trace id or a finding number');
  return { id: trimmed };
}
