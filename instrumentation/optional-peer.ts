import { createRequire } from 'node:module';

/** Resolved from afterstop's own folder: the app's node_modules, where an optional peer is installed. */
const requireModule = createRequire(import.meta.url);

/** An optional peer dependency, loaded (`module`), or why not (`problem`: "is not installed", or the error). */
export type OptionalPeer<T> = { module: T } | { problem: string };

/**
 * Load the optional peer dependency `name` (package.json peerDependenciesMeta) when a feature needs it,
 * never at startup: the OTLP/HTTP trace exporter, the NodeSDK. Both are CommonJS packages: required, they
 * are the same modules an import gives. Never throws: a caller says what it does instead.
 */
export function loadOptionalPeer<T>(name: string): OptionalPeer<T> {
  try {
    return { module: requireModule(name) as T };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const missing = (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(message).includes(`'${name}'`);
    return { problem: missing ? 'is not installed' : `cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
}

/** The stderr line's advice: the package and its install command. */
export const installHint = (name: string): string => `npm install ${name}`;
