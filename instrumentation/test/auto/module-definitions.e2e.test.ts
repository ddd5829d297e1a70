import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_VERSIONS } from '../../auto/anthropic.js';
import { debugging, supported } from '../../auto/module-definitions.js';
import { distModule } from '../../../test/helpers/child.js';
import { versionedApps, versionIn } from '../../../test/helpers/versioned-app.js';
import { fileURLToPath } from 'node:url';

/**
 * Never silent: a known package loaded at a version afterstop does not support is said once on stderr
 * (package, version, the range supported); with AFTERSTOP_DEBUG or OTEL_LOG_LEVEL=debug each patch says
 * what it patched. Real packages (the Anthropic SDK below and at the lower end of its range), under
 * `node --import afterstop/register`.
 */
const versioned = versionedApps();
const REGISTER = fileURLToPath(distModule('instrumentation/register.js'));

/** Import the package twice (ESM and CommonJS) in an app beside it, under afterstop/register. */
function load(alias: string, env: Record<string, string> = {}) {
  const app = versioned('anthropic-app.mjs', { '@anthropic-ai/sdk': alias });
  const dir = path.dirname(app);
  fs.writeFileSync(
    path.join(dir, 'load.mjs'),
    `
    import { createRequire } from 'node:module';
    await import('@anthropic-ai/sdk');
    createRequire(import.meta.url)('@anthropic-ai/sdk');
    console.log('loaded');
  `,
  );
  const result = spawnSync(process.execPath, ['--import', REGISTER, 'load.mjs'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', AFTERSTOP_TRACES_DIR: path.join(dir, 'traces'), ...env } });
  return { ...result, version: versionIn(app, '@anthropic-ai/sdk') };
}

describe('never silent about versions', () => {
  it('a version below the supported range: said once on stderr, with the range; the app runs', () => {
    const r = load('anthropic-sdk-0.19.2');
    expect(r.version).toBe('0.19.2');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('loaded');
    const said = r.stderr.split('\n').filter((l) => l.includes('@anthropic-ai/sdk 0.19.2'));
    expect(said).toEqual([`afterstop: @anthropic-ai/sdk 0.19.2 is loaded; afterstop supports ${ANTHROPIC_VERSIONS.join(' || ')}, so afterstop-anthropic leaves it alone and its runs are not recorded`]);
  });

  it('a supported version: nothing said; with AFTERSTOP_DEBUG or OTEL_LOG_LEVEL=debug, what was patched, once', () => {
    const quiet = load('anthropic-sdk-0.20.0');
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/anthropic/);
    for (const env of [{ AFTERSTOP_DEBUG: '1' }, { OTEL_LOG_LEVEL: 'debug' }] as Record<string, string>[]) {
      const loud = load('anthropic-sdk-0.20.0', env);
      expect(loud.status, loud.stderr).toBe(0);
      expect(loud.stderr.split('\n').filter((l) => l.startsWith('afterstop: afterstop-anthropic patched'))).toEqual(['afterstop: afterstop-anthropic patched @anthropic-ai/sdk 0.20.0']);
    }
  });

  it('the switches and the ranges', () => {
    expect(debugging({})).toBe(false);
    expect(debugging({ AFTERSTOP_DEBUG: '0' })).toBe(false);
    expect(debugging({ AFTERSTOP_DEBUG: 'true' })).toBe(true);
    expect(debugging({ OTEL_LOG_LEVEL: 'VERBOSE' })).toBe(true);
    expect(debugging({ OTEL_LOG_LEVEL: 'info' })).toBe(false);
    expect(supported('0.20.0', ANTHROPIC_VERSIONS)).toBe(true);
    expect(supported('2.0.0-beta.1', ['>=1 <3'])).toBe(true);
    expect(supported('0.19.2', ANTHROPIC_VERSIONS)).toBe(false);
  });
});
