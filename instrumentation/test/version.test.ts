import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../index.js';

describe('VERSION', () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
