import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/**
 * An app of scorecard/apps run against other versions of the packages it
 * imports: the versions are installed under npm aliases (`openai-4.13.0` is
 * `npm:openai@4.13.0`, see package.json), copied here under their real names
 * into a folder of the project (so that `afterstop` and the packages' own
 * dependencies still resolve), with a copy of the app beside them. The
 * instrumentations see the real package name and version, as in a user's app.
 * Call {@link versionedApps} at the top of a test file.
 */
export function versionedApps(): (app: string, packages: Record<string, string>) => string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const base = path.join(root, '.cache', `versions-${process.pid}`);
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  return (app, packages) => {
    const dir = path.join(base, Object.values(packages).join('+'));
    for (const [name, alias] of Object.entries(packages)) {
      const target = path.join(dir, 'node_modules', name);
      if (!fs.existsSync(target)) fs.cpSync(path.join(root, 'node_modules', alias), target, { recursive: true, dereference: true });
    }
    const file = path.join(dir, app);
    fs.copyFileSync(path.join(root, 'scorecard', 'apps', app), file);
    return file;
  };
}

/** The version of `name` an app in `dir` gets. */
export function versionIn(appFile: string, name: string): string {
  const pkg = path.join(path.dirname(appFile), 'node_modules', name, 'package.json');
  return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/** The version of `name` an app resolves, looking up from its folder as Node does. */
export function resolvedVersion(appFile: string, name: string): string {
  for (let dir = path.dirname(appFile); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(pkg)) return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not resolvable from ${appFile}`);
  }
}
