import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzerVersion, PACKAGE_NAME } from '../version.js';

describe('analyzerVersion', () => {
  it("is the version of the analyzer's package.json, found by its name walking up from the module", () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect(PACKAGE_NAME).toBe(manifest.name);
    expect(analyzerVersion()).toBe(manifest.version);
    expect(analyzerVersion()).not.toBe('unknown');
  });
});
