import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packages, SHARED_MODULES } from '../vitest.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What a test file may not do when the files of its worker share their modules (vitest.config.ts SHARED_MODULES). */
const LEAKS: [RegExp, string][] = [
  [/\bvi\.(mock|doMock|stubGlobal|stubEnv|spyOn|useFakeTimers)\b/, 'mocks, stubs or spies'],
  [/process\.env(\.\w+|\[[^\]]+\])\s*=[^=]/, 'sets the environment'],
  [/\bdelete process\.env\b/, 'unsets the environment'],
  [/\bprocess\.(chdir|exitCode\s*=|on\(|once\()/, 'changes the process'],
  [/\bglobalThis(\.\w+|\[[^\]]+\])\s*=[^=]/, 'sets a global'],
];

function unitTests(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.endsWith('.e2e.test.ts'))
    .map((f) => path.join(dir, f));
}

describe('unit tests that share their modules', () => {
  it('none patches a global, mocks a module or sets the environment (the next file in the worker would see it)', () => {
    const shared = packages.filter(([name]) => SHARED_MODULES.includes(name));
    expect(shared.map(([name]) => name)).toEqual([...SHARED_MODULES]);
    const files = shared.flatMap(([, dir]) => unitTests(dir));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) =>
      fs
        .readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => LEAKS.filter(([re]) => re.test(line)).map(([, what]) => `${f}:${i + 1} ${what}: ${line.trim()}`)),
    );
    expect(found).toEqual([]);
  });

  it('the check finds what it looks for', () => {
    const lines = ["vi.mock('node:fs');", "process.env['X'] = '1';", 'process.env.X = "1";', 'delete process.env.X;', 'process.exitCode = 1;', 'globalThis.fetch = f;'];
    for (const line of lines)
      expect(
        LEAKS.some(([re]) => re.test(line)),
        line,
      ).toBe(true);
    for (const line of ["expect(process.env['X']).toBe('1');", 'if (process.env.X === "1") {}', 'const env = { ...process.env, X: "1" };'])
      expect(
        LEAKS.some(([re]) => re.test(line)),
        line,
      ).toBe(false);
  });
});
