import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * afterstop's OpenTelemetry ranges meet the ones the frameworks beside it declare: for every
 * `@opentelemetry/*` package a framework names (dependency, peer or optional peer) and afterstop names too,
 * some release satisfies both, so npm can install one copy for both without --force. (An exact pin of the
 * OTLP exporter at 0.223.0 beside Strands' ^0.219.0 peer was an ERESOLVE.) The installs themselves, from the
 * registry, are `npm run check:install` in .ci/run.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(path.join(root, 'package.json'));
const ours = JSON.parse(fs.readFileSync(path.join(root, 'instrumentation', 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
const ourRanges: Record<string, string> = { ...ours['dependencies'], ...ours['peerDependencies'] };

const FRAMEWORKS = ['@strands-agents/sdk', '@google/adk', 'ai', 'ai-sdk-otel-1.0.173', '@mastra/core', '@openai/agents', '@langchain/core'];

/** A package's manifest, found by walking up from its resolved entry (its exports need not list package.json). */
function manifestOf(name: string): string {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && path.basename(dir) === name.split('/').pop()) return file;
  }
  throw new Error(`no package.json for ${name}`);
}

function declared(name: string): Record<string, string> {
  const manifest = JSON.parse(fs.readFileSync(manifestOf(name), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return { ...manifest['dependencies'], ...manifest['peerDependencies'] };
}

describe.each(FRAMEWORKS)('beside %s', (framework) => {
  const theirs = Object.entries(declared(framework)).filter(([name]) => name.startsWith('@opentelemetry/') && name in ourRanges);
  it(`every OpenTelemetry range both declare meets (${theirs.map(([n]) => n.replace('@opentelemetry/', '')).join(', ') || 'none shared'})`, () => {
    const apart = theirs.filter(([name, range]) => !semver.intersects(ourRanges[name] ?? '', range));
    expect(apart).toEqual([]);
  });
});

it('the API is a ^1 peer, and no OpenTelemetry package is pinned to one release', () => {
  expect(ours['peerDependencies']?.['@opentelemetry/api']).toMatch(/^\^1\./);
  expect(ours['dependencies']?.['@opentelemetry/api']).toBeUndefined();
  const pinned = Object.entries(ourRanges).filter(([name, range]) => name.startsWith('@opentelemetry/') && semver.valid(range) !== null);
  expect(pinned).toEqual([]);
});

it('the pin of the old package.json would have failed beside Strands (the test can fail)', () => {
  const strands = declared('@strands-agents/sdk')['@opentelemetry/exporter-trace-otlp-http'];
  expect(strands).toBeDefined();
  expect(semver.intersects('0.223.0', strands ?? '')).toBe(false);
});
