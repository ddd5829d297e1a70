import * as nodeModule from 'node:module';
import { noteUninstrumented, sayOnce } from '../adapter-api.js';
import { UNINSTRUMENTED_PACKAGES, type UninstrumentedPackage } from './uninstrumented-packages.js';

type ResolveHook = (specifier: string, context: { parentURL?: string | undefined; conditions?: readonly string[] | undefined }, nextResolve: (specifier: string, context?: unknown) => unknown) => unknown;
type RegisterHooks = (hooks: { resolve: ResolveHook }) => unknown;

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for a relative, absolute, URL or builtin specifier. */
export function packageOf(specifier: string): string | undefined {
  const first = specifier.charCodeAt(0);
  // '.', '/', and 'node:'/'file:'/'data:' (a colon before any slash)
  if (first === 46 || first === 47) return undefined;
  const slash = specifier.indexOf('/');
  const colon = specifier.indexOf(':');
  if (colon !== -1 && (slash === -1 || colon < slash)) return undefined;
  if (first !== 64) return slash === -1 ? specifier : specifier.slice(0, slash);
  if (slash === -1) return undefined;
  const second = specifier.indexOf('/', slash + 1);
  return second === -1 ? specifier : specifier.slice(0, second);
}

/** Say it and note it: one line on stderr per package per process, and the runs carry it. */
export function announce(entry: UninstrumentedPackage): void {
  noteUninstrumented(entry.module, entry.ownSpans === true);
  sayOnce(
    `uninstrumented:${entry.module}`,
    `${entry.module} (${entry.what}) is loaded, and afterstop does not instrument it: ${entry.misses}. The runs of this process carry afterstop.run.uninstrumented, and the report's figures are lower bounds.`,
  );
}

/**
 * Watch the app's module resolutions (import and require alike: Node's in-thread `module.registerHooks`,
 * Node 22.15+) for the packages of uninstrumented-packages.ts. The hook resolves first (a package that is not
 * installed, which an optional import tries, is not named), then looks at bare specifiers only: one Map
 * lookup per resolution, nothing on modules afterstop does not list. A listed package resolved from inside
 * another listed package (Google ADK loads the MCP SDK) is that package's: only the outer one is named. One
 * counted only in its CommonJS build (`requiredOnly`: the MCP SDK's client) is named when `require` resolves it.
 * Without `registerHooks`, says once that it cannot watch. Never throws into the app.
 */
export function watchUninstrumented(packages: readonly UninstrumentedPackage[] = UNINSTRUMENTED_PACKAGES): void {
  const byName = new Map(packages.map((p) => [p.module, p]));
  const insideListed = packages.map((p) => `/node_modules/${p.module}/`);
  const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== 'function') {
    sayOnce(
      'uninstrumented:unwatched',
      `Node ${process.version} has no module.registerHooks (Node 22.15+): afterstop cannot name the agent frameworks, agent SDKs and MCP clients it does not instrument when the app loads them`,
    );
    return;
  }
  const seen = new Set<string>();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      try {
        const name = packageOf(specifier);
        const entry = name === undefined ? undefined : byName.get(name);
        const counted = entry?.subpaths === undefined || entry.subpaths.some((sub) => specifier.startsWith(`${entry.module}/${sub}`));
        if (entry !== undefined && counted && !seen.has(entry.module)) {
          const parent = context.parentURL ?? '';
          const required = entry.requiredOnly !== true || (context.conditions ?? []).includes('require');
          if (required && !insideListed.some((dir) => parent.includes(dir))) {
            seen.add(entry.module);
            announce(entry);
          }
        }
      } catch {
        // never into the app's loading
      }
      return resolved;
    },
  });
}
