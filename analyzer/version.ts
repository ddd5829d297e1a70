import * as fs from 'node:fs';

/** The analyzer's npm package: its package.json says the version `afterstop --version` prints. */
export const PACKAGE_NAME = '@afterstop/analyzer';

let version: string | undefined;

/**
 * The analyzer's version, read at run time from its package's package.json: the nearest one, walking up
 * from this module, whose name is {@link PACKAGE_NAME} (from dist/analyzer/ in a clone or an install, and
 * from the sources under vitest). Not the instrumentation's version: the analyzer shares nothing with it
 * but the span contract. `unknown` if no such package.json is found.
 */
export function analyzerVersion(): string {
  if (version !== undefined) return version;
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    const file = new URL('package.json', dir);
    try {
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return (version = manifest.version);
    } catch {
      // No package.json here, or not one we can read: look further up.
    }
    if (new URL('../', dir).href === dir.href) return (version = 'unknown');
  }
}
