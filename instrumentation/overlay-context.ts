import type { Context } from '@opentelemetry/api';

/** A value deleted in this overlay (the base may still have one). */
const DELETED = Symbol('afterstop.context.deleted');

/**
 * An OpenTelemetry `Context`: the values afterstop set, over the app's context
 * they were set on. It behaves as the API's own contexts do (immutable;
 * `setValue` and `deleteValue` return a new one) and is what a run, a tool
 * call and a model call hand to the code they run.
 *
 * Why not the API's `BaseContext`: each of those makes three closures that
 * capture the context itself, and V8's scavenger keeps such objects, and all
 * they point to, alive across the next minor GC (measured: every run's
 * context, run and span survived one, 1.3-1.8 MB per scavenge at 700 runs a
 * second, and the scavenges grew to 10 ms pauses of the app's event loop;
 * bench/collector-faults.ts). This one keeps its methods on its prototype.
 */
export class OverlayContext implements Context {
  private constructor(
    private readonly base: Context,
    /**
     * What this overlay set (or deleted) over `base`, as key, value, key, value...; never changed once the
     * context is handed out. (A list, not a Map: an overlay holds a few keys, and copying a Map of three for
     * every tool call was 5 % of the call.)
     */
    private readonly entries: unknown[],
  ) {}

  /** `base` with `key` set to `value` (`undefined`: deleted), in one new context. */
  static set(base: Context, key: symbol, value: unknown): OverlayContext {
    if (!(base instanceof OverlayContext)) return new OverlayContext(base, [key, value === undefined ? DELETED : value]);
    const entries = base.entries.slice();
    put(entries, key, value);
    return new OverlayContext(base.base, entries);
  }

  /** `base` with `key` and then `key2` set (`undefined`: deleted): what two `set`s make, in one new context (a tool call's span and call). */
  static setTwo(base: Context, key: symbol, value: unknown, key2: symbol, value2: unknown): OverlayContext {
    const own = base instanceof OverlayContext;
    const entries = own ? base.entries.slice() : [];
    put(entries, key, value);
    put(entries, key2, value2);
    return new OverlayContext(own ? base.base : base, entries);
  }

  getValue(key: symbol): unknown {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i += 2) {
      if (entries[i] === key) {
        const value = entries[i + 1];
        return value === DELETED ? undefined : value;
      }
    }
    return this.base.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return OverlayContext.set(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return this.getValue(key) === undefined ? this : OverlayContext.set(this, key, undefined);
  }
}

/** Set `key` in a fresh list of entries (`undefined`: deleted). */
function put(entries: unknown[], key: symbol, value: unknown): void {
  const stored = value === undefined ? DELETED : value;
  for (let i = 0; i < entries.length; i += 2) {
    if (entries[i] === key) {
      entries[i + 1] = stored;
      return;
    }
  }
  entries.push(key, stored);
}
