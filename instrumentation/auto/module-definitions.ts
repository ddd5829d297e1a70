import { createRequire } from 'node:module';
import { InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { sayOnce } from '../adapter-api.js';

type Json = Record<string, unknown>;

/** Whether afterstop says on stderr what it patched: AFTERSTOP_DEBUG, or OTEL_LOG_LEVEL at debug or below. */
export function debugging(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (env['AFTERSTOP_DEBUG'] ?? '').trim().toLowerCase();
  if (flag !== '' && flag !== '0' && flag !== 'false') return true;
  return ['debug', 'verbose', 'all'].includes((env['OTEL_LOG_LEVEL'] ?? '').trim().toLowerCase());
}

/**
 * semver's `satisfies`, required at its first use (a patched package loaded), not at startup: semver
 * compiles its regular expressions as it loads (47 module files for the whole package).
 */
let satisfies: typeof import('semver/functions/satisfies.js') | undefined;

/** Whether a loaded version is one the patch supports (prereleases included, as the OTel base matches them). */
export function supported(version: string, versions: readonly string[]): boolean {
  satisfies ??= createRequire(import.meta.url)('semver/functions/satisfies.js') as typeof import('semver/functions/satisfies.js');
  const matches = satisfies;
  return versions.some((range) => matches(version, range, { includePrerelease: true }));
}

/**
 * The module definitions of one package's patch: the patch itself for the versions it supports (it says so
 * when debugging), and a watcher of every version that says once on stderr when the app loads one the
 * patch does not support, so that a run not recorded is never silent. `commonJsFile`, when `module` is a
 * package's subpath export (`@mastra/core/agent`): the CommonJS file it maps to, as `package/path` (the ESM
 * loader hook matches the subpath; require hooks match a package's files), patched the same way.
 */
export function moduleDefinitions(
  instrumentation: string,
  module: string,
  versions: string[],
  patch: (exports: Json, version: string | undefined) => Json,
  unpatch: (exports: Json) => void,
  commonJsFile?: string,
): InstrumentationNodeModuleDefinition[] {
  const said =
    (name: string) =>
    (exports: Json, version?: string): Json => {
      const patched = patch(exports, version);
      if (debugging()) sayOnce(`patched:${instrumentation}:${name}@${version}`, `${instrumentation} patched ${name} ${version ?? '(version unknown)'}`);
      return patched;
    };
  const files =
    commonJsFile === undefined
      ? []
      : [
          new InstrumentationNodeModuleDefinition(
            commonJsFile
              .split('/')
              .slice(0, commonJsFile.startsWith('@') ? 2 : 1)
              .join('/'),
            versions,
            undefined,
            undefined,
            [new InstrumentationNodeModuleFile(commonJsFile, versions, said(commonJsFile), unpatch)],
          ),
        ];
  return [
    new InstrumentationNodeModuleDefinition(module, versions, said(module), unpatch),
    ...files,
    new InstrumentationNodeModuleDefinition(module, ['*'], (exports: Json, version?: string) => {
      if (version !== undefined && !supported(version, versions)) {
        sayOnce(`unsupported:${module}@${version}`, `${module} ${version} is loaded; afterstop supports ${versions.join(' || ')}, so ${instrumentation} leaves it alone and its runs are not recorded`);
      }
      return exports;
    }),
  ];
}
