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
    expect(names).toEqual(expect.arrayContaining(['@google/adk', '@strands-agents/sdk', '@voltagent/core', '@openai/codex-sdk', '@modelcontextprotocol/sdk']));
    // The MCP clients the mcp instrumentation measures are not named: the v2 client, the AI SDK's, and the frameworks' adapters on them.
    for (const measured of ['@modelcontextprotocol/client', '@ai-sdk/mcp', '@mastra/mcp', '@langchain/mcp-adapters']) expect(names).not.toContain(measured);
    for (const p of UNINSTRUMENTED_PACKAGES) expect(p.misses.length).toBeGreaterThan(20);
  });

  it('the MCP SDK required (its CommonJS build, which the mcp instrumentation cannot reach) and imported (subpaths, twice each): one line on stderr; packages not listed or not installed: none; a run after it carries it', async () => {
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
      expect.stringMatching(/^afterstop: @modelcontextprotocol\/sdk \(the MCP SDK, an MCP client\) is loaded, and afterstop does not instrument it: its CommonJS build \(loaded with require\)/),
    ]);
    const runs = (await readTraces(traces)).spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs.map((s) => s.attributes['afterstop.run.uninstrumented'])).toEqual(['@modelcontextprotocol/sdk']);
  });

  it("an MCP server (the MCP SDK's server and types, which the mcp-server instrumentation covers): nothing named", async () => {
    const r = await runModule(
      `
      await import('@modelcontextprotocol/sdk/server/mcp.js');
      await import('@modelcontextprotocol/sdk/server/stdio.js');
      await import('@modelcontextprotocol/sdk/types.js');
      console.log('ok');
      `,
      { cwd: ROOT, nodeArgs: ['--import', REGISTER] },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(naming(r.stderr)).toEqual([]);
  });

  it('the MCP SDK imported only (its ESM build, which the mcp instrumentation measures), and the v2 client a framework loads, used: nothing named, the runs carry nothing', async () => {
    const traces = path.join(dir(), 'traces');
    const server = path.join(ROOT, 'test/fixtures/mcp/mcp-server.mjs');
    const r = await runModule(
      `
      await import('@openai/agents');
      await import('@modelcontextprotocol/sdk/client/index.js');
      await import('@modelcontextprotocol/sdk/client/stdio.js');
      const { startRun, flush } = await import(${JSON.stringify(distModule('instrumentation/index.js'))});
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
    expect(naming(r.stderr)).toEqual([]);
    const runs = (await readTraces(traces)).spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs.map((s) => s.attributes['afterstop.run.uninstrumented'])).toEqual([undefined]);
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
