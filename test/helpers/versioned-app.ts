import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { versionedApp } from '../../scorecard/versioned-app.js';

/** Copies of scorecard/apps run against other package versions (scorecard/versioned-app.ts), removed after the file's tests. Call it at the top of a test file. */
export function versionedApps(): (app: string, packages: Record<string, string>) => string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const base = path.join(root, '.cache', `versions-${process.pid}`);
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  return (app, packages) => versionedApp(root, base, app, packages);
}

/** The version of `name` an app resolves, looking up from its folder as Node does. */
export function versionIn(appFile: string, name: string): string {
  for (let dir = path.dirname(appFile); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(pkg)) return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not resolvable from ${appFile}`);
  }
}
