/**
 * `npm pack` of workspace packages (by folder) into `into`: what npm would publish, each tarball with its
 * npm name, file name, size and file count. The install check (install-size.ts) and the e2e tier's
 * packed install (test/packed-setup.ts) both pack through it.
 */
import { execFileSync } from 'node:child_process';

export interface Packed {
  name: string;
  filename: string;
  size: number;
  entryCount: number;
}

export function packWorkspaces(root: string, into: string, folders: readonly string[]): Packed[] {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', into, ...folders.flatMap((f) => ['-w', f])], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out) as Packed[];
}
