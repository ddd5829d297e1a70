import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AI_SDK_5_MCP_VERSIONS, AI_SDK_MCP_VERSIONS, MCP_SDK_VERSIONS } from '../../auto/mcp.js';
import { readTraces } from '../../../analyzer/index.js';
import { agreesWithTruth, sdkApps, toolResults, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * Depth 4 needs evidence (issue 45), and the MCP client measured (issue 48): an AI SDK 6 agent whose tools
 * come from an MCP server (the real `@ai-sdk/mcp` client, the real `@modelcontextprotocol/sdk` server in a
 * process of its own, not instrumented), under `node --import afterstop/register`, stopped while the server's
 * send_email is in flight. The e-mail lands after Stop (the simulator's ledger), and no result reaches the
 * conversation. The tool span is the MCP call (server, transport, JSON-RPC id, the effect class the server
 * listed); its request reached the server and its answer was lost to the Stop: a `request_sent` commit after
 * Stop, a possible ghost (never a commit dated before the e-mail service got its request); how the cancel
 * crossed: nothing (`@ai-sdk/mcp` on stdio never sends `notifications/cancelled`), the POST's stream closed
 * (its HTTP transport), a notification (the MCP SDK's Client given the signal).
 */
const { runApp } = sdkApps();
const APP = fileURLToPath(new URL('../../../test/fixtures/mcp/ai-sdk-mcp-app.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The app and its server beside `@ai-sdk/mcp` at another version (installed under the npm alias `alias`), in a folder of the project. */
const versionsDir = path.join(ROOT, '.cache', `mcp-versions-${process.pid}`);
afterAll(() => fs.rmSync(versionsDir, { recursive: true, force: true }));
function appWith(name: string, alias: string, more: [name: string, alias: string][] = []): string {
  const dir = path.join(versionsDir, alias);
  const copies: [string, string][] = [[name, alias], ...more];
  for (const [n, a] of copies) fs.cpSync(path.join(ROOT, 'node_modules', a), path.join(dir, 'node_modules', n), { recursive: true, dereference: true });
  for (const f of ['ai-sdk-mcp-app.mjs', 'ai5-mcp-app.mjs', 'mcp-server.mjs', 'effect-listener.mjs']) fs.copyFileSync(path.join(path.dirname(APP), f), path.join(dir, f));
  return path.join(dir, 'ai-sdk-mcp-app.mjs');
}
const versionOf = (app: string, name: string): string => (JSON.parse(fs.readFileSync(path.join(path.dirname(app), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** The commit markers of the run: their evidence and time. */
async function commits(r: AppRun): Promise<{ evidence: unknown; startNs: bigint }[]> {
  return (await readTraces(r.traces)).spans.filter((s) => s.name === 'afterstop.tool.commit').map((s) => ({ evidence: s.attributes['afterstop.tool.commit.evidence'], startNs: s.startNs }));
}

describe('AI SDK 6 with tools from an MCP server, Stop while a tool is in flight', () => {
  const what: Record<string, string> = {
    stdio: 'streamText, the server over stdio (@ai-sdk/mcp)',
    http: 'ToolLoopAgent, the server over Streamable HTTP (@ai-sdk/mcp)',
    'sdk-client': "streamText, the app's tool calling the server over stdio through @modelcontextprotocol/sdk's Client",
  };
  for (const scenario of ['stdio', 'http', 'sdk-client']) {
    it(`${what[scenario]}: an orphan and a possible ghost, depth below 4, as the ledger has it`, async () => {
      // The MCP SDK's Client (1.32) rejects with an McpError that keeps the abort's reason only as text: the MCP
      // instrumentation knows it for the abort it is (cancelled, as @ai-sdk/mcp's MCPClientError with the abort as its cause).
      await expectSeenAsItHappened(await runApp(APP, scenario), scenario, { stdio: 'none', http: 'stream_closed', 'sdk-client': 'notification' }[scenario]!);
    });
  }

  it(`@ai-sdk/mcp ${AI_SDK_MCP_VERSIONS.join(' ')}: 1.0.0, the lowest, over stdio: the same`, async () => {
    const app = appWith('@ai-sdk/mcp', 'ai-sdk-mcp-1.0.0');
    expect(versionOf(app, '@ai-sdk/mcp')).toBe('1.0.0');
    // 1.0.0 keeps no serverInfo: the server is named by its command's first word.
    await expectSeenAsItHappened(await runApp(app, 'stdio'), 'stdio', 'none', { oldest: true, server: 'node' });
  });

  it(`@ai-sdk/mcp ${AI_SDK_MCP_VERSIONS.join(' ')}: 2.0.99, the highest, with AI SDK 7, over stdio: the same`, async () => {
    const app = appWith('@ai-sdk/mcp', 'ai-sdk-mcp-2.0.99', [
      ['ai', 'ai-7.0.173'],
      ['@ai-sdk/openai', 'ai-sdk-openai-4.0.118'],
    ]);
    expect([versionOf(app, '@ai-sdk/mcp'), versionOf(app, 'ai')]).toEqual(['2.0.99', '7.0.173']);
    await expectSeenAsItHappened(await runApp(app, 'stdio'), 'stdio', 'none');
  });

  it(`AI SDK ${AI_SDK_5_MCP_VERSIONS.join(' ')}: the MCP client it ships (experimental_createMCPClient from ai 5.0.0), over stdio: the same`, async () => {
    const app = appWith('ai', 'ai-5.0.0', [['@ai-sdk/openai', 'ai-sdk-openai-2.0.0']]);
    expect(versionOf(app, 'ai')).toBe('5.0.0');
    const r = await runApp(path.join(path.dirname(app), 'ai5-mcp-app.mjs'), 'stdio');
    // The truth: the e-mail after Stop; AI SDK 5 keeps the abort's error as the call's result (a tool-error part): no orphan.
    const stopNs = BigInt(String(r.out['stopNs']));
    expect(r.effects.map((e) => e.committedNs! > stopNs)).toEqual([true]);
    expect(truthAfterStop(r)).toMatchObject({ ghostCommits: 1, orphans: 0 });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 0 });
    expect(r.report.totals.cancel_depth['4']).toBe(0);
    // The tools/call measured inside the AI SDK's tool call: its request reached the server, the answer lost to the Stop, nothing crossed.
    const seen = await commits(r);
    expect(seen.map((c) => [c.evidence, c.startNs > stopNs])).toEqual([['request_sent', true]]);
    const [span] = (await readTraces(r.traces)).spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(span!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'afterstop.mcp.side': 'client', 'afterstop.tool.out_of_sight': 'mcp', 'afterstop.mcp.cancel.via': 'none' });
    agreesWithTruth(r);
  });

  it(`@modelcontextprotocol/sdk ${MCP_SDK_VERSIONS.join(' ')}: 1.0.0, the lowest (client and server), its Client in the app's tool: the same`, async () => {
    const app = appWith('@modelcontextprotocol/sdk', 'modelcontextprotocol-sdk-1.0.0');
    expect(versionOf(app, '@modelcontextprotocol/sdk')).toBe('1.0.0');
    // 1.0.0 rejects with the abort's reason itself: cancelled. Its Client writes its cancel as `cancelled`, a
    // method no server (its own 1.0.0 neither) takes for `notifications/cancelled`: nothing crossed.
    await expectSeenAsItHappened(await runApp(app, 'sdk-client'), 'sdk-client', 'none', { oldest: true });
  });
});

/** The report beside the ledger: an orphan, a possible ghost, depth below 4, no commit before the service got the request; the MCP call on the tool span. */
async function expectSeenAsItHappened(r: AppRun, scenario: string, via: string, options: { oldest?: boolean; server?: string } = {}): Promise<void> {
  // The truth: one e-mail, sent and committed after Stop; the call ran and its result was never kept.
  expect(r.effects).toHaveLength(1);
  const stopNs = BigInt(String(r.out['stopNs']));
  const [mail] = r.effects;
  expect(mail!.committedNs! > stopNs).toBe(true);
  const truth = truthAfterStop(r);
  expect(truth).toMatchObject({ ghostCommits: 1, orphans: 1 });
  const t = r.report.totals;
  expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
  expect(t.cancel_depth['4']).toBe(0);
  // The abort error the MCP client threw is a cancelled result, never delivered.
  expect(Object.values(await toolResults(r))).toEqual(['cancelled']);
  const possible = r.report.findings.filter((f) => f.kind === 'possible_ghost_commit');
  expect(possible.map((f) => f.tool)).toEqual(['send_email']);
  expect(possible[0]!.detail).toMatch(/its request reached the service/);
  // Its request reached the MCP server, its answer lost to the Stop: request_sent after Stop; no commit dated
  // before the e-mail service got its request (the event stream's headers are no commit).
  const seen = await commits(r);
  expect(seen.map((c) => c.evidence)).toEqual(['request_sent']);
  expect(seen[0]!.startNs > stopNs).toBe(true);
  const spans = (await readTraces(r.traces)).spans;
  const [span] = spans.filter((s) => s.name.startsWith('execute_tool '));
  expect(span!.attributes).toMatchObject({
    'afterstop.tool.out_of_sight': 'mcp',
    'mcp.method.name': 'tools/call',
    'afterstop.mcp.side': 'client',
    'afterstop.mcp.server': options.server ?? 'mail',
    'network.transport': scenario === 'http' ? 'tcp' : 'pipe',
    'afterstop.mcp.cancel.via': via,
  });
  expect(span!.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
  // @ai-sdk/mcp listed the tools, send_email as destructive: irreversible (the app's own Client listed none: unknown;
  // the oldest client's schema drops annotations).
  if (options.oldest !== true) expect(span!.attributes['afterstop.tool.effect']).toBe(scenario === 'sdk-client' ? 'unknown' : 'irreversible');
  // A cancel that crossed is a marker of the tool span, at that instant (after the Stop).
  const cancels = spans.filter((s) => s.name === 'afterstop.mcp.cancel');
  expect(cancels.map((c) => c.attributes['afterstop.mcp.cancel.via'])).toEqual(via === 'none' ? [] : [via]);
  for (const c of cancels) expect(c.startNs > stopNs && c.attributes['jsonrpc.request.id'] === span!.attributes['jsonrpc.request.id']).toBe(true);
  agreesWithTruth(r);
}
