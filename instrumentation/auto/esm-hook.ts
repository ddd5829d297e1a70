import { register } from 'node:module';

/** The deprecation of `module.register` in Node 26 (it still works; `module.registerHooks` is its successor). */
const REGISTER_DEPRECATED = 'DEP0205';

/**
 * Hook the ESM loader for `include` (import-in-the-middle's hook, as OpenTelemetry's instrumentations use
 * it), off-thread with `module.register`. Node 26 deprecates it (DEP0205), and the app's stderr got that
 * warning for afterstop's doing: it is held back during this one call, any other warning passes.
 * (The in-thread `module.registerHooks` loader of import-in-the-middle 3.6 crashes an app run as
 * `node --input-type=module -e` that imports a CommonJS package: ENOENT on the builtin 'module'.)
 */
export function hookModules(include: string[]): void {
  const emitWarning = process.emitWarning;
  process.emitWarning = function filtered(this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const options = rest[0];
    const code = typeof options === 'object' && options !== null ? (options as { code?: unknown }).code : rest[1];
    if (code === REGISTER_DEPRECATED) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include } });
  } finally {
    process.emitWarning = emitWarning;
  }
}
