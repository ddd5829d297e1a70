import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraces, type FlatSpan } from '../../../analyzer/index.js';
import { agreesWithTruth, sdkApps, toolResults, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * The MCP client side measured (issue 48), with the real clients and a real server in a process of its own
 * (mcp-server.mjs, not instrumented), under `node --import afterstop/register`:
 * - a hand-written loop (`openai` + the MCP SDK's `Client.callTool(..., { signal })`, no afterstop API), its server
 *   over stdio started through a wrapper process (`sh -c 'exec node …'`), over Streamable HTTP, and with the v2
 *   client package: the tool call is a cancelled run's call, its request reached the server and its answer was
 *   lost to the Stop (request_sent, a possible ghost, as the ledger has the e-mail landing after Stop), the
 *   cancel crossed as a notification; the tool span names server, transport, JSON-RPC id and the effect class the
 *   server listed; its trace context reached the server in `params._meta`;
 * - answered: an `mcp_result` commit, a read-only tool none;
 * - the guard: a `tools/call` after its run's Stop is refused, nothing reaches the server; at the Stop, where
 *   `@ai-sdk/mcp` on stdio sends nothing, the guard sends `notifications/cancelled`, and a server that honours
 *   it sends no e-mail.
 */
const { runApp } = sdkApps();
const LOOP = fileURLToPath(new URL('../../../test/fixtures/mcp/mcp-client-app.mjs', import.meta.url));
const AGENTS_APP = fileURLToPath(new URL('../../../test/fixtures/mcp/openai-agents-mcp-app.mjs', import.meta.url));
const AI_SDK_APP = fileURLToPath(new URL('../../../test/fixtures/mcp/ai-sdk-mcp-app.mjs', import.meta.url));
const metaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-mcp-meta-'));
afterAll(() => fs.rmSync(metaDir, { recursive: true, force: true }));

let metas = 0;
/** Run `app` with the server echoing each tools/call's `_meta` to a file: the run, and what the server got. */
async function runWithMeta(app: string, scenario: string, env: Record<string, string> = {}): Promise<{ r: AppRun; meta: { tool: string; _meta: Record<string, unknown> | null }[] }> {
  const file = path.join(metaDir, `${++metas}.jsonl`);
  const r = await runApp(app, scenario, { META_FILE: file, ...env });
  const meta = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  return { r, meta };
}

const spansOf = async (r: AppRun): Promise<FlatSpan[]> => (await readTraces(r.traces)).spans;
const named = (spans: FlatSpan[], name: string): FlatSpan[] => spans.filter((s) => s.name === name);
const toolSpans = (spans: FlatSpan[]): FlatSpan[] => spans.filter((s) => s.name.startsWith('execute_tool '));
const traceparentOf = (s: FlatSpan): string => `00-${s.traceId}-${s.spanId}-01`;

describe('a hand-written loop: openai and the MCP SDK Client.callTool(..., { signal }), Stop while send_email is in flight', () => {
  const cases = {
    'loop-stdio': { transport: 'pipe', what: 'over stdio, the server started through `sh -c exec`' },
    'loop-http': { transport: 'tcp', what: 'over Streamable HTTP' },
    'loop-v2': { transport: 'pipe', what: 'the v2 client package (@modelcontextprotocol/client) over stdio' },
  } as const;
  for (const [scenario, { transport, what }] of Object.entries(cases)) {
    it(`${what}: a cancelled run with its tool call, request_sent a possible ghost, the cancel crossed as a notification, the trace context at the server`, async () => {
      const { r, meta } = await runWithMeta(LOOP, scenario);
      // The truth: the e-mail committed after Stop.
      const stopNs = BigInt(String(r.out['stopNs']));
      expect(r.effects).toHaveLength(1);
      expect(r.effects[0]!.committedNs! > stopNs).toBe(true);
      expect(truthAfterStop(r).ghostCommits).toBe(1);
      // The model call's run completed; the tool call is a run of its own, stopped by the request's signal.
      const t = r.report.totals;
      expect(t).toMatchObject({ runs: 2, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1 });
      expect(t.cancel_depth['4']).toBe(0);
      expect(Object.values(await toolResults(r))).toEqual(['cancelled']);
      const spans = await spansOf(r);
      const [tool] = toolSpans(spans);
      expect(tool!.attributes).toMatchObject({
        'gen_ai.tool.name': 'send_email',
        'mcp.method.name': 'tools/call',
        'afterstop.mcp.side': 'client',
        'afterstop.mcp.server': 'mail',
        'network.transport': transport,
        'afterstop.tool.effect': 'irreversible',
        'afterstop.tool.out_of_sight': 'mcp',
        'afterstop.mcp.cancel.via': 'notification',
        'afterstop.framework': 'mcp',
      });
      if (transport === 'tcp') expect(tool!.attributes).toMatchObject({ 'server.address': '127.0.0.1' });
      const id = tool!.attributes['jsonrpc.request.id'];
      expect(id).toMatch(/^\d+$/);
      const commits = named(spans, 'afterstop.tool.commit');
      expect(commits.map((c) => [c.attributes['afterstop.tool.commit.evidence'], c.attributes['jsonrpc.request.id']])).toEqual([['request_sent', id]]);
      expect(commits[0]!.startNs > stopNs).toBe(true);
      const cancels = named(spans, 'afterstop.mcp.cancel');
      expect(cancels.map((c) => [c.attributes['afterstop.mcp.cancel.via'], c.attributes['jsonrpc.request.id'], c.parentSpanId])).toEqual([['notification', id, tool!.spanId]]);
      expect(cancels[0]!.attributes['afterstop.guard.mcp_cancel']).toBeUndefined();
      // The server got the tool span's trace context.
      expect(meta.map((m) => m._meta?.['traceparent'])).toEqual([traceparentOf(tool!)]);
      agreesWithTruth(r);
    });
  }

  it('answered: an mcp_result commit at the answer, a delivered result, the run completed', async () => {
    const { r, meta } = await runWithMeta(LOOP, 'answered');
    expect(r.effects).toHaveLength(1);
    const spans = await spansOf(r);
    const [tool] = toolSpans(spans);
    expect(tool!.attributes).toMatchObject({ 'afterstop.tool.result': 'delivered', 'afterstop.tool.effect': 'irreversible' });
    expect(tool!.attributes['afterstop.mcp.cancel.via']).toBeUndefined();
    const commits = named(spans, 'afterstop.tool.commit');
    expect(commits.map((c) => c.attributes['afterstop.tool.commit.evidence'])).toEqual(['mcp_result']);
    // Dated at the answer: after the e-mail service committed.
    expect(commits[0]!.startNs >= r.effects[0]!.committedNs!).toBe(true);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 0, ghost_commits: 0, ghost_commits_possible: 0 });
    expect(meta.map((m) => m._meta?.['traceparent'])).toEqual([traceparentOf(tool!)]);
  });
});

describe('OpenAI Agents JS, MCPServerStdio (its per-turn MCP tools, through the v2 client package), Stop while send_email is in flight', () => {
  it('a tool call of the agent run, request_sent a possible ghost, the cancel crossed as a notification', async () => {
    const { r, meta } = await runWithMeta(AGENTS_APP, 'stdio');
    const stopNs = BigInt(String(r.out['stopNs']));
    expect(r.effects).toHaveLength(1);
    expect(r.effects[0]!.committedNs! > stopNs).toBe(true);
    // Before issue 48: no tool call recorded at all, depth 4.
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(r.report.totals.cancel_depth['4']).toBe(0);
    const spans = await spansOf(r);
    const [run] = spans.filter((s) => s.name.startsWith('invoke_agent'));
    const [tool] = toolSpans(spans);
    expect(tool!.attributes).toMatchObject({
      'afterstop.run.id': run!.attributes['afterstop.run.id'],
      'afterstop.framework': 'openai-agents',
      'gen_ai.tool.name': 'send_email',
      'afterstop.mcp.server': 'mail',
      'network.transport': 'pipe',
      'afterstop.tool.effect': 'irreversible',
      'afterstop.mcp.cancel.via': 'notification',
      'afterstop.tool.result': 'cancelled',
    });
    expect(named(spans, 'afterstop.tool.commit').map((c) => c.attributes['afterstop.tool.commit.evidence'])).toEqual(['request_sent']);
    expect(meta.map((m) => m._meta?.['traceparent'])).toEqual([traceparentOf(tool!)]);
    // The per-turn MCP tool is wrapped as the agent's own tools are: the call is the runner's (its id), and the
    // runner's placeholder result for it (a history repair) keeps it from being an orphan.
    const [repair] = named(spans, 'afterstop.history.repair');
    expect(repair?.attributes['afterstop.repair.tool_call_ids']).toEqual([tool!.attributes['gen_ai.tool.call.id']]);
    expect(r.report.totals).toMatchObject({ orphan_tool_calls: 0, repaired_tool_calls: 1 });
    agreesWithTruth(r);
  });
});

describe('the guard (its fence on) and MCP', () => {
  it('a tools/call made after its run was stopped is refused: a prevented commit, an abort error, nothing reaches the server; a read-only call before it writes no commit', async () => {
    const { r, meta } = await runWithMeta(LOOP, 'refused', { AFTERSTOP_GUARD_FENCE: '1' });
    expect(r.out).toMatchObject({ lookup: 'order 1: shipped', refused: 'AbortError' });
    expect(r.out['sent']).toBeUndefined();
    expect(r.effects).toEqual([]);
    // The server got the lookup, never the e-mail.
    expect(meta.map((m) => m.tool)).toEqual(['lookup_order']);
    const spans = await spansOf(r);
    expect(named(spans, 'afterstop.tool.commit')).toEqual([]);
    const prevented = named(spans, 'afterstop.tool.commit.prevented');
    expect(prevented.map((p) => [p.attributes['mcp.method.name'], p.attributes['gen_ai.tool.name'], p.attributes['afterstop.mcp.server']])).toEqual([['tools/call', 'send_email', 'mail']]);
    expect(Object.fromEntries(toolSpans(spans).map((s) => [s.attributes['gen_ai.tool.name'], [s.attributes['afterstop.tool.effect'], s.attributes['afterstop.tool.result']]]))).toEqual({
      lookup_order: ['read', 'delivered'],
      send_email: ['irreversible', 'cancelled'],
    });
  });

  it('without the fence the same call goes out after the Stop, and the e-mail lands', async () => {
    const { r, meta } = await runWithMeta(LOOP, 'refused');
    expect(r.out['sent']).toBe(true);
    expect(meta.map((m) => m.tool)).toEqual(['lookup_order', 'send_email']);
    expect(r.effects).toHaveLength(1);
  });

  it('@ai-sdk/mcp over stdio sends no notifications/cancelled: the guard sends it at the Stop, and a server that honours it sends no e-mail (without the guard, it does)', async () => {
    const honouring = { HONOUR_CANCEL: '1' };
    // Before: nothing crosses, the honouring server never hears of the Stop, the e-mail lands after it.
    const before = await runApp(AI_SDK_APP, 'stdio', honouring);
    expect(before.effects).toHaveLength(1);
    expect(before.effects[0]!.committedNs! > BigInt(String(before.out['stopNs']))).toBe(true);
    const [beforeTool] = toolSpans(await spansOf(before));
    expect(beforeTool!.attributes['afterstop.mcp.cancel.via']).toBe('none');
    // After: the guard's notification crosses, the server stops, no e-mail.
    const after = await runApp(AI_SDK_APP, 'stdio', { ...honouring, AFTERSTOP_GUARD_FENCE: '1' });
    expect(after.out['server']).toEqual({ cancelled: true });
    expect(after.effects).toEqual([]);
    const spans = await spansOf(after);
    const [tool] = toolSpans(spans);
    expect(tool!.attributes).toMatchObject({ 'afterstop.mcp.cancel.via': 'notification', 'afterstop.tool.result': 'cancelled' });
    const cancels = named(spans, 'afterstop.mcp.cancel');
    expect(cancels.map((c) => [c.attributes['afterstop.mcp.cancel.via'], c.attributes['afterstop.guard.mcp_cancel'], c.attributes['jsonrpc.request.id']])).toEqual([
      ['notification', true, tool!.attributes['jsonrpc.request.id']],
    ]);
    expect(cancels[0]!.startNs > BigInt(String(after.out['stopNs']))).toBe(true);
    // The client cannot know the server stopped: still a possible ghost, never a known one; the ledger agrees.
    expect(after.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 1 });
    agreesWithTruth(after);
  });
});
