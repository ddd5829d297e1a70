/**
 * JSON text of a value, written only up to a budget of characters: content
 * capture must not stall the app on a large value (a prompt with file parts,
 * a graph state), so serialisation stops once the budget is spent instead of
 * building the whole text and cutting it afterwards. As JSON.stringify
 * (`toJSON` is called, `undefined`, functions and symbols are left out of
 * objects and are `null` in arrays, non-finite numbers are `null`), except
 * that nothing throws for the value's shape: a BigInt is its digits as a
 * string, binary data is `"[binary N bytes]"`, a cycle is `"[circular]"`,
 * nesting deeper than 32 is `"[too deep]"`. A getter or `toJSON` that throws
 * still throws.
 */
const CUT = Symbol('budget spent');
const MAX_DEPTH = 32;

/** The first `n` UTF-16 units of `s`, without splitting a surrogate pair. */
export function sliceUnits(s: string, n: number): string {
  if (s.length <= n) return s;
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function resolve(v: unknown): unknown {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
}

/** `{ text, cut }`, or undefined for a value JSON would not write (undefined, a function, a symbol). */
export function boundedJson(value: unknown, budget: number): { text: string; cut: boolean } | undefined {
  const parts: string[] = [];
  let size = 0;
  const seen = new Set<object>();
  const emit = (s: string): void => {
    if (size + s.length > budget) {
      parts.push(sliceUnits(s, budget - size));
      throw CUT;
    }
    parts.push(s);
    size += s.length;
  };
  const write = (v: unknown, depth: number): void => {
    switch (typeof v) {
      case 'string':
        // A string longer than what is left is cut before it is escaped: a megabyte is not copied.
        return emit(JSON.stringify(v.length > budget - size ? sliceUnits(v, Math.max(0, budget - size)) : v));
      case 'number':
        return emit(Number.isFinite(v) ? String(v) : 'null');
      case 'boolean':
        return emit(String(v));
      case 'bigint':
        return emit(JSON.stringify(v.toString()));
      case 'object': {
        if (v === null) return emit('null');
        if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return emit(JSON.stringify(`[binary ${v.byteLength} bytes]`));
        if (seen.has(v)) return emit('"[circular]"');
        if (depth >= MAX_DEPTH) return emit('"[too deep]"');
        seen.add(v);
        if (Array.isArray(v)) {
          emit('[');
          for (let i = 0; i < v.length; i++) {
            if (i > 0) emit(',');
            const item = resolve(v[i]);
            if (omitted(item)) emit('null');
            else write(item, depth + 1);
          }
          emit(']');
        } else {
          emit('{');
          let first = true;
          for (const key of Object.keys(v)) {
            const item = resolve((v as Record<string, unknown>)[key]);
            if (omitted(item)) continue;
            emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
            first = false;
            write(item, depth + 1);
          }
          emit('}');
        }
        seen.delete(v);
        return;
      }
      default:
        return emit('null');
    }
  };
  const top = resolve(value);
  if (omitted(top)) return undefined;
  try {
    write(top, 0);
  } catch (error) {
    if (error === CUT) return { text: parts.join(''), cut: true };
    throw error;
  }
  return { text: parts.join(''), cut: false };
}
