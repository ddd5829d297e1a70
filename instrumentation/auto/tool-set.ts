type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * A framework's tool set (name → tool) with each tool's `execute` replaced by
 * `wrap`'s: the same tool objects otherwise (prototype, getters and all,
 * copied: the app's own tools are not touched). Anything that is not a tool
 * set, and tools without an `execute`, are handed back as they are.
 */
export function withExecutes(tools: unknown, wrap: (name: string, execute: Fn) => Fn): unknown {
  if (typeof tools !== 'object' || tools === null) return tools;
  return Object.fromEntries(
    Object.entries(tools as Json).map(([name, t]) => {
      const execute = (t as Json | undefined)?.['execute'];
      if (typeof execute !== 'function') return [name, t];
      const copy = Object.create(Object.getPrototypeOf(t) as object, Object.getOwnPropertyDescriptors(t)) as Json;
      Object.defineProperty(copy, 'execute', { value: wrap(name, execute as Fn), enumerable: true, writable: true, configurable: true });
      return [name, copy];
    }),
  );
}
