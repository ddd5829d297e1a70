import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packWorkspaces } from '../bench/pack.js';

/**
 * The e2e tier runs what users install: each workspace package is packed (`npm pack`, the files its
 * package.json ships, nothing else) and its tarball unpacked into node_modules in place of the workspace
 * link, as npm would install it. Every child that imports `afterstop`, `afterstop/register` or runs the
 * `afterstop` command then gets the packed copy: a file left out of `files`, a missing `exports` key or a
 * dependency only the workspace has fails an e2e test. Their dependencies come from the workspace's
 * node_modules (the lockfile's versions): nothing is fetched from the registry. The links come back when
 * the run ends.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
export const PACKAGES = [
  { folder: 'contract', name: '@afterstop/span-contract' },
  { folder: 'instrumentation', name: 'afterstop' },
  { folder: 'analyzer', name: '@afterstop/analyzer' },
] as const;

const installed = (name: string): string => path.join(root, 'node_modules', ...name.split('/'));

function link(folder: string, name: string): void {
  const at = installed(name);
  fs.rmSync(at, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(path.relative(path.dirname(at), path.join(root, folder)), at, 'junction');
}

export function installPacked(): void {
  const packs = path.join(root, '.cache', 'packs');
  fs.rmSync(packs, { recursive: true, force: true });
  fs.mkdirSync(packs, { recursive: true });
  const packed = packWorkspaces(
    root,
    packs,
    PACKAGES.map((p) => p.folder),
  );
  for (const { name, filename } of packed) {
    const at = installed(name);
    fs.rmSync(at, { recursive: true, force: true });
    fs.mkdirSync(at, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(packs, filename), '-C', at, '--strip-components=1']);
  }
}

export function restoreLinks(): void {
  for (const p of PACKAGES) link(p.folder, p.name);
}

/**
 * Once per run, when the run asks for it (AFTERSTOP_TEST_PACKED=1: `npm test` and `npm run test:e2e` set
 * it): a unit-tier run imports the sources and packs nothing, and a run of a few files while another run
 * is going on does not pull the packed copies from under it.
 */
export default function setup(): (() => void) | undefined {
  // Inherited by every project, run once per project in the one main process: the first installs.
  if (process.env['AFTERSTOP_TEST_PACKED'] !== '1' || process.env['AFTERSTOP_TEST_PACKED_INSTALLED'] === '1') return undefined;
  installPacked();
  process.env['AFTERSTOP_TEST_PACKED_INSTALLED'] = '1';
  return () => {
    restoreLinks();
    delete process.env['AFTERSTOP_TEST_PACKED_INSTALLED'];
  };
}
