import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What npm shows beside a published package: where its source lives, where to read about it and where to
 * report a bug, and which Node lines it runs on (the README's first lines say the same range).
 */
const PUBLISHED = ['instrumentation', 'analyzer', 'contract'] as const;
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe.each(PUBLISHED)('%s/package.json', (folder) => {
  const pkg = JSON.parse(readFileSync(new URL(`../${folder}/package.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

  it('names its repository folder, a homepage and where bugs go', () => {
    expect(pkg['repository']).toEqual({ type: 'git', url: 'git+https://github.com/afterstop/afterstop.git', directory: folder });
    expect(pkg['homepage']).toBe('https://github.com/afterstop/afterstop#readme');
    expect(pkg['bugs']).toEqual({ url: 'https://github.com/afterstop/afterstop/issues' });
  });

  it('declares the Node range the README states at its top', () => {
    const range = (pkg['engines'] as { node?: string } | undefined)?.node;
    expect(range).toBe('>=22');
    const top = readme.split('\n').slice(0, 30).join('\n');
    expect(top).toContain('Node.js 22 or later');
  });
});
