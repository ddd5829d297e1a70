import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { UNINSTRUMENTED_PACKAGES } from '../../auto/uninstrumented-packages.js';
import { packageOf } from '../../auto/watch-uninstrumented.js';
import { distModule, runModule, tempCwd } from '../../../test/helpers/child.js';

/**
 * Never silent about what is not instrumented: a package of uninstrumented-packages.ts that the app loads,
 * by import or by require, is named once on stderr under afterstop/register, and the runs of the process
 * carry it (afterstop.run.uninstrumented); a package afterstop does not list, or one that is not installed,
 * is not. Real packages (the MCP SDK is installed), a real child process.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTER = fileURLToPath(distModule('instrumentation/register.js'));
const dir = tempCwd();

const naming = (stderr: string): string[] => stderr.split('\n').filter((l) => l.includes('afterstop does not instrument'));

describe('packageOf: the package a specifier names', () => {
  it.each([
    ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk'],
    ['@google/adk', '@google/adk'],
    ['genkit', 'genkit'],
    ['genkit/beta', 'genkit'],
    ['./local.js', undefined],
    ['/abs/file.js', undefined],
    ['node:fs', undefined],
    ['file:///x/y.js', undefined],
    ['@scope', undefined],
  ])('%s: %s', (specifier, name) => {
    expect(packageOf(specifier)).toBe(name);
  });
});

describe('watching for packages afterstop does not instrument', () => {
  it('the list names each package once, with what afterstop misses', () => {
    const names = UNINSTRUMENTED_PACKAGES.map((p) => p.module);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['@google/adk', '@strands-agents/sdk', '@voltagent/core', '@openai/codex-sdk', '@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@ai-sdk/mcp']));
    for (const p of UNINSTRUMENTED_PACKAGES) expect(p.misses.length).toBeGreaterThan(20);
  });

  it('the MCP SDK required and imported (subpaths, twice each): one line on stderr; packages not listed or not installed: none; a run after it carries it', async () => {
    const traces = path.join(dir(), 'traces');
    const r = await runModule(
      `
      import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(path.join(ROOT, 'app.cjs'))});
      require('@modelcontextprotocol/sdk/client/index.js');
      require('@modelcontextprotocol/sdk/types.js');
      await import('@modelcontextprotocol/sdk/client/index.js');
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      require('semver');
      await import('commander');
      // Listed but not installed here: an optional import that fails is not named.
      try { require('@voltagent/core'); } catch {}
      await import('@langchain/mcp-adapters').catch(() => {});
      const { startRun, flush } = await import(${JSON.stringify(distModule('instrumentation/index.js'))});
      startRun({ agentName: 'a' }).end();
      await flush(1500);
      console.log('ok');
      `,
      { cwd: ROOT, nodeArgs: ['--import', REGISTER], env: { AFTERSTOP_TRACES_DIR: traces } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('ok');
    expect(naming(r.stderr)).toEqual([
      expect.stringMatching(/^afterstop: @modelcontextprotocol\/sdk \(the MCP SDK, an MCP client\) is loaded, and afterstop does not instrument it: an MCP tool's side effects happen in the MCP server/),
    ]);
    const runs = (await readTraces(traces)).spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs.map((s) => s.attributes['afterstop.run.uninstrumented'])).toEqual(['@modelcontextprotocol/sdk']);
  });

  it('an MCP client a framework afterstop instruments loads (OpenAI Agents loads @modelcontextprotocol/client) is named when a client of it sends a request, not before', async () => {
    const traces = path.join(dir(), 'traces');
    const server = path.join(ROOT, 'test/fixtures/mcp/mcp-server.mjs');
    const r = await runModule(
      `
      await import('@openai/agents');
      const { startRun, flush } = await import(${JSON.stringify(distModule('instrumentation/index.js'))});
      startRun({ agentName: 'before' }).end();
      await flush(1500);
      console.error('-- connecting');
      const { Client } = await import('@modelcontextprotocol/client');
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      const client = new Client({ name: 'app', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(server)}, 'stdio'] }));
      await client.close();
      startRun({ agentName: 'after' }).end();
      await flush(1500);
      console.log('ok');
      `,
      { cwd: ROOT, nodeArgs: ['--import', REGISTER], env: { AFTERSTOP_TRACES_DIR: traces } },
    );
    expect(r.code, r.stderr).toBe(0);
    const [before, after] = r.stderr.split('-- connecting');
    expect(naming(before ?? '')).toEqual([]);
    expect(naming(after ?? '')).toEqual([expect.stringMatching(/^afterstop: @modelcontextprotocol\/client \(the MCP client \(v2\), an MCP client\) is loaded/)]);
    const runs = (await readTraces(traces)).spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(Object.fromEntries(runs.map((s) => [s.name, s.attributes['afterstop.run.uninstrumented']]))).toEqual({
      'invoke_agent before': undefined,
      'invoke_agent after': '@modelcontextprotocol/client',
    });
  });

  it('nothing listed loaded: nothing said, and the run carries no such attribute', async () => {
    const traces = path.join(dir(), 'traces');
    const r = await runModule(
      `
      await import('semver');
      const { startRun, flush } = await import(${JSON.stringify(distModule('instrumentation/index.js'))});
      startRun({ agentName: 'a' }).end();
      await flush(1500);
      `,
      { cwd: ROOT, nodeArgs: ['--import', REGISTER], env: { AFTERSTOP_TRACES_DIR: traces } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const runs = (await readTraces(traces)).spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs).toHaveLength(1);
    expect(runs[0]!.attributes).not.toHaveProperty('afterstop.run.uninstrumented');
  });
});
