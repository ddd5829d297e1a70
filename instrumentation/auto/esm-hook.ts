import { register as registerSyncHooks, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';

type Register = (specifier: string, parentURL: string, options: { data: unknown }) => void;

/**
 * Hook the ESM loader for `include` (import-in-the-middle, as OpenTelemetry's instrumentations use it):
 * in-thread with `module.registerHooks` where Node runs it right (22.22.3, 24.11.1, 26 and later), else
 * the off-thread `module.register` hook. Node 26 deprecates `module.register` (DEP0205): under it, the
 * app's stderr got a deprecation warning for afterstop's doing.
 */
export function hookModules(include: string[], register: Register, parentURL: string): 'sync' | 'async' {
  if (supportsSyncHooks()) {
    registerSyncHooks({ include });
    return 'sync';
  }
  register('@opentelemetry/instrumentation/hook.mjs', parentURL, { data: { include } });
  return 'async';
}
