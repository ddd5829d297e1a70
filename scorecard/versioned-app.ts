import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * An app of scorecard/apps run against other versions of the packages it
 * imports: the versions are installed under npm aliases (`ai-7.0.173` is
 * `npm:ai@7.0.173`, see package.json), copied under their real names into
 * `base` (a folder inside the project, so that `afterstop` and the packages'
 * own dependencies still resolve), with a copy of the app beside them. The
 * instrumentations see the real package name and version, as in a user's app.
 * The files the apps import or start beside them ({@link COMPANIONS}) are copied too.
 * Returns the copy of the app.
 */
/** What the apps import (their plumbing: the MCP apps' kit, the flag Stop button) and start (the MCP server) from their own folder. */
export const COMPANIONS = ['mcp-app-kit.mjs', 'mcp-mail-server.mjs', 'stop-button.mjs'];

export function versionedApp(root: string, base: string, app: string, packages: Record<string, string>): string {
  const dir = path.join(base, Object.values(packages).join('+'));
  for (const [name, alias] of Object.entries(packages)) {
    const target = path.join(dir, 'node_modules', name);
    if (!fs.existsSync(target)) fs.cpSync(path.join(root, 'node_modules', alias), target, { recursive: true, dereference: true });
  }
  const file = path.join(dir, app);
  for (const f of [app, ...COMPANIONS]) fs.copyFileSync(path.join(root, 'scorecard', 'apps', f), path.join(dir, f));
  return file;
}
