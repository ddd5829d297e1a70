import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGES } from './packed-setup.js';

/**
 * `npm test` and `npm run test:e2e` run the e2e tier against the packages as `npm pack` ships them
 * (test/packed-setup.ts): what resolves as `afterstop`, `@afterstop/analyzer` and the span contract is
 * the unpacked tarball, not the workspace folder. A run that did not ask for it (a few files under
 * `npx vitest run`) gets the workspace links.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);

describe.each(PACKAGES)('$name in this run', ({ folder, name }) => {
  const installed = path.join(root, 'node_modules', ...name.split('/'));
  const resolved = path.dirname(require.resolve(`${name}/package.json`));

  if (process.env['AFTERSTOP_TEST_PACKED'] === '1') {
    it('is the packed tarball unpacked into node_modules: its own folder, only the files package.json ships', () => {
      expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
      expect(resolved).toBe(installed);
      const shipped = fs.readdirSync(installed, { recursive: true }) as string[];
      expect(shipped).toContain('package.json');
      expect(shipped.some((f) => f.startsWith(`dist${path.sep}`) && f.endsWith('.js'))).toBe(true);
      // Sources, tests, tsconfig and source maps stay in the workspace.
      expect(shipped.filter((f) => /(^|\/)test\/|\.ts$|\.map$|tsconfig/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    });
  } else {
    it('is the workspace folder, linked (this run did not ask for the packed copies: AFTERSTOP_TEST_PACKED)', () => {
      expect(fs.realpathSync(resolved)).toBe(path.join(root, folder));
    });
  }
});
