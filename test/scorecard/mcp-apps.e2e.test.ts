import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_CLIENT_VERSIONS } from '../../scorecard/scenarios.js';
import { versionedApp } from '../../scorecard/versioned-app.js';
import { sdkApps, type AppRun } from '../helpers/sdk-app.js';

/**
 * The scorecard's MCP apps (scorecard/apps/*-mcp-app.mjs, mcp-sdk-loop-app.mjs) work: each, with the scorecard's
 * MCP mail server in a process of its own, is stopped while the server's send_email is in flight, and the
 * simulator's ledger has the e-mail, received before the Stop and committed after it (the ghost the rows
 * measure). What afterstop makes of them is the scorecard's (`npm run scorecard -- --framework MCP:`), not this
 * file's: a broken app fails here, not in a row.
 */
const { app, runApp } = sdkApps();
const root = fileURLToPath(new URL('../../', import.meta.url));
const versionsDir = path.join(root, '.cache', `mcp-apps-${process.pid}`);
afterAll(() => fs.rmSync(versionsDir, { recursive: true, force: true }));

/** One e-mail, its POST in flight at the Stop: received before it, committed after it. */
function expectStoppedInFlight(r: AppRun): void {
  expect(r.out['stopNs'], r.stderr).toBeDefined();
  const stopNs = BigInt(String(r.out['stopNs']));
  expect(r.effects.map((e) => [e.name, e.outcome])).toEqual([['send_email', 'committed']]);
  const [mail] = r.effects;
  expect(mail!.receivedNs < stopNs, 'the POST was in flight at the Stop').toBe(true);
  expect(mail!.committedNs! > stopNs, 'the e-mail landed after the Stop').toBe(true);
  // The app says which tool calls ran (the ground truth of orphans): the one e-mail call.
  expect(r.out['toolsRan']).toHaveLength(1);
}

const version = (appFile: string, name: string): string => (JSON.parse(fs.readFileSync(path.join(path.dirname(appFile), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

describe('the scorecard MCP apps, stopped while the server sends the e-mail', () => {
  const cases: [string, string][] = [
    ['ai-sdk-mcp-app.mjs', 'stdio'],
    ['ai-sdk-mcp-app.mjs', 'http'],
    ['openai-agents-mcp-app.mjs', 'stdio'],
    ['openai-agents-mcp-app.mjs', 'http'],
    ['mastra-mcp-app.mjs', 'stdio'],
    ['langchain-mcp-app.mjs', 'stdio'],
    ['mcp-sdk-loop-app.mjs', 'stdio'],
  ];
  for (const [file, scenario] of cases) {
    it(`${file} ${scenario}: the e-mail in flight at the Stop lands after it`, async () => {
      expectStoppedInFlight(await runApp(app(file), scenario));
    });
  }

  it('the server under --import afterstop/register, started through sh (a grandchild of the app): the same', async () => {
    // (A server that failed to start under afterstop, or through sh, fails the app.)
    expectStoppedInFlight(await runApp(app('mcp-sdk-loop-app.mjs'), 'stdio', { SERVER_REGISTER: '1', MCP_WRAPPER: 'sh' }));
  });

  it('a handler that honours its signal, and one that composes the mail past the Stop: the ledger has each as it happened', async () => {
    // HONOUR=1 without a cancel that reaches the server (@ai-sdk/mcp over stdio sends none): the POST goes on, the mail lands after Stop.
    expectStoppedInFlight(await runApp(app('ai-sdk-mcp-app.mjs'), 'stdio', { HONOUR: '1' }));
    // PREPARE_MS=300: the POST leaves after the Stop (the sends-late moment).
    const late = await runApp(app('ai-sdk-mcp-app.mjs'), 'stdio', { PREPARE_MS: '300' });
    expect(late.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(late.effects[0]!.receivedNs > BigInt(String(late.out['stopNs']))).toBe(true);
  });
});

describe('the MCP clients at the lowest versions the docs claim', () => {
  it(`@mastra/mcp ${MCP_CLIENT_VERSIONS['@mastra/mcp']}: 1.0.0 (the MCP SDK v1 client; 2.x is on its v2 client), the same`, async () => {
    const file = versionedApp(root, versionsDir, 'mastra-mcp-app.mjs', { '@mastra/mcp': 'mastra-mcp-1.0.0' });
    expect(version(file, '@mastra/mcp')).toBe(semver.minVersion(MCP_CLIENT_VERSIONS['@mastra/mcp'])!.version);
    expectStoppedInFlight(await runApp(file, 'stdio'));
  });

  it(`@langchain/mcp-adapters ${MCP_CLIENT_VERSIONS['@langchain/mcp-adapters']}: 1.0.0, the same`, async () => {
    const file = versionedApp(root, versionsDir, 'langchain-mcp-app.mjs', { '@langchain/mcp-adapters': 'langchain-mcp-adapters-1.0.0' });
    expect(version(file, '@langchain/mcp-adapters')).toBe(semver.minVersion(MCP_CLIENT_VERSIONS['@langchain/mcp-adapters'])!.version);
    expectStoppedInFlight(await runApp(file, 'stdio'));
  });

  it('the installed versions are within those ranges', () => {
    for (const [name, range] of Object.entries(MCP_CLIENT_VERSIONS)) {
      const installed = (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      expect(semver.satisfies(installed, range), `${name} ${installed} in ${range}`).toBe(true);
    }
  });
});
