import { InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { satisfies } from 'semver';
import { sayOnce } from '../safe.js';

type Json = Record<string, unknown>;

/** Whether afterstop says on stderr what it patched: AFTERSTOP_DEBUG, or OTEL_LOG_LEVEL at debug or below. */
export function debugging(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (env['AFTERSTOP_DEBUG'] ?? '').trim().toLowerCase();
  if (flag !== '' && flag !== '0' && flag !== 'false') return true;
  return ['debug', 'verbose', 'all'].includes((env['OTEL_LOG_LEVEL'] ?? '').trim().toLowerCase());
}

/** Whether a loaded version is one the patch supports (prereleases included, as the OTel base matches them). */
export const supported = (version: string, versions: readonly string[]): boolean =>
  versions.some((range) => satisfies(version, range, { includePrerelease: true }));

/**
 * The module definitions of one package's patch: the patch itself for the versions it supports (it says so
 * when debugging), and a watcher of every version that says once on stderr when the app loads one the
 * patch does not support, so that a run not recorded is never silent.
 */
export function moduleDefinitions(
  instrumentation: string,
  module: string,
  versions: string[],
  patch: (exports: Json, version: string | undefined) => Json,
  unpatch: (exports: Json) => void,
): InstrumentationNodeModuleDefinition[] {
  return [
    new InstrumentationNodeModuleDefinition(
      module,
      versions,
      (exports: Json, version?: string) => {
        const patched = patch(exports, version);
        if (debugging()) sayOnce(`patched:${instrumentation}:${module}@${version}`, `${instrumentation} patched ${module} ${version ?? '(version unknown)'}`);
        return patched;
      },
      unpatch,
    ),
    new InstrumentationNodeModuleDefinition(module, ['*'], (exports: Json, version?: string) => {
      if (version !== undefined && !supported(version, versions)) {
        sayOnce(`unsupported:${module}@${version}`, `${module} ${version} is loaded; afterstop supports ${versions.join(' || ')}, so ${instrumentation} leaves it alone and its runs are not recorded`);
      }
      return exports;
    }),
  ];
}
