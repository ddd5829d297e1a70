import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceFlags, createTraceState, type SpanContext } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CommitFencedError, isAbortError, setup, startRun } from '../../index.js';
import { McpInstrumentation } from '../../auto/mcp.js';
import { MAX_TOOLS_PER_CLIENT, rememberedEffect, rememberTools } from '../../auto/mcp-annotations.js';
import { effectOfToolAnnotations as effectOfAnnotations } from '../../mcp-server-call.js';
import { traceparentOf, withTraceContext } from '../../auto/mcp-trace-context.js';
import { commandWord } from '../../command-word.js';
import { transportFacts } from '../../auto/mcp-transport.js';
import { captureTraces, named, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The MCP client side's pure pieces (effect classes from annotations, the trace context in a copy of `_meta`, what
 * a transport says of its server), and the instrumentation on the real MCP SDK Client and Server, linked in memory
 * (the e2e tier runs them in processes of their own: mcp-client.e2e.test.ts).
 */
describe('effect class from MCP tool annotations', () => {
  it.each([
    [undefined, 'unknown'],
    [null, 'unknown'],
    [{}, 'unknown'],
    [{ readOnlyHint: true }, 'read'],
    [{ readOnlyHint: true, destructiveHint: true }, 'read'],
    [{ destructiveHint: true }, 'irreversible'],
    [{ destructiveHint: true, idempotentHint: true }, 'irreversible'],
    [{ destructiveHint: false, idempotentHint: true }, 'idempotent'],
    [{ readOnlyHint: false, destructiveHint: false, openWorldHint: true }, 'unknown'],
    [{ readOnlyHint: 'yes' }, 'unknown'],
  ])('%j is %s', (annotations, effect) => {
    expect(effectOfAnnotations(annotations)).toBe(effect);
  });

  it('remembered per client from a tools/list answer, at most MAX_TOOLS_PER_CLIENT names, a hostile answer ignored', () => {
    const client = {};
    const tools = Array.from({ length: MAX_TOOLS_PER_CLIENT + 5 }, (_, i) => ({ name: `t${i}`, annotations: { readOnlyHint: true } }));
    rememberTools(client, { tools: [{ name: 'send', annotations: { destructiveHint: true } }, ...tools] });
    expect(rememberedEffect(client, 'send')).toBe('irreversible');
    expect(rememberedEffect(client, 't0')).toBe('read');
    expect(rememberedEffect(client, `t${MAX_TOOLS_PER_CLIENT + 4}`)).toBeUndefined();
    // Another client knows nothing of them.
    expect(rememberedEffect({}, 'send')).toBeUndefined();
    const hostile = {
      get tools(): never {
        throw new Error('no');
      },
    };
    expect(() => rememberTools(client, hostile)).not.toThrow();
    // A known name is updated (the server listed it again, changed).
    rememberTools(client, { tools: [{ name: 'send', annotations: { readOnlyHint: true } }] });
    expect(rememberedEffect(client, 'send')).toBe('read');
  });
});

describe('trace context in params._meta', () => {
  const sc: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };

  it("a copy with traceparent (and tracestate when not empty); the caller's objects unchanged", () => {
    const params = Object.freeze({ name: 'send', arguments: Object.freeze({ to: 'a' }), _meta: Object.freeze({ progressToken: 1 }) });
    const out = withTraceContext(params, { ...sc, traceState: createTraceState('vendor=x') }) as Record<string, Record<string, unknown>>;
    expect(out).not.toBe(params);
    expect(out['_meta']).toEqual({ progressToken: 1, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=x' });
    expect(out['arguments']).toBe(params.arguments);
    expect(params._meta).toEqual({ progressToken: 1 });
    expect((withTraceContext({ name: 'send' }, sc) as { _meta: unknown })._meta).toEqual({ traceparent: traceparentOf(sc) });
  });

  it("leaves an app's traceparent, a _meta that is not an object, params that are not one, and an invalid span context alone", () => {
    const own = { name: 'send', _meta: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' } };
    expect(withTraceContext(own, sc)).toBe(own);
    const odd = { name: 'send', _meta: 'x' };
    expect(withTraceContext(odd, sc)).toBe(odd);
    expect(withTraceContext('x', sc)).toBe('x');
    const params = { name: 'send' };
    expect(withTraceContext(params, { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 })).toBe(params);
    expect(traceparentOf({ ...sc, traceFlags: TraceFlags.NONE })).toMatch(/-00$/);
  });
});

describe('what a transport says of its server', () => {
  it("a command's first word, never its arguments; a URL's host", () => {
    expect(commandWord('/usr/local/bin/node server.mjs --token s3cret')).toBe('node');
    expect(commandWord('  npx -y @scope/server')).toBe('npx');
    expect(commandWord('C:\\tools\\server.exe')).toBe('server.exe');
    expect(commandWord('')).toBeUndefined();
    expect(transportFacts({ _serverParams: { command: 'sh', args: ['-c', 'exec node s.mjs --key k'] } })).toEqual({ network: 'pipe', server: 'sh', address: undefined, port: undefined });
    expect(transportFacts({ _url: new URL('http://[::1]:8080/mcp?key=k') })).toEqual({ network: 'tcp', server: '[::1]:8080', address: '::1', port: 8080 });
    expect(transportFacts({ url: 'https://mcp.example.com/mcp' })).toEqual({ network: 'tcp', server: 'mcp.example.com', address: 'mcp.example.com', port: 443 });
    expect(transportFacts({})).toEqual({ network: undefined, server: undefined, address: undefined, port: undefined });
  });
});

describe('the MCP SDK Client and Server, in memory', () => {
  let capture: TraceCapture;
  const instrumentation = new McpInstrumentation({ enabled: false });
  const sdk = instrumentation.getModuleDefinitions().find((d) => d.name === '@modelcontextprotocol/sdk/client/index.js' && typeof d.patch === 'function' && !d.supportedVersions.includes('*'))!;
  const exports = { Client } as unknown as Record<string, unknown>;
  const originalRequest = Client.prototype.request;
  const originalListTools = Client.prototype.listTools;
  beforeAll(() => {
    capture = captureTraces();
    sdk.patch!(exports, '1.32.2');
  });
  afterAll(async () => {
    sdk.unpatch!(exports, '1.32.2');
    await capture.close();
  });

  /** A server whose send tool waits for its cancel (or 50 ms), and records each call's _meta. */
  async function connected(): Promise<{ client: Client; metas: unknown[]; aborted: unknown[]; heard: Promise<void> }> {
    const metas: unknown[] = [];
    const aborted: unknown[] = [];
    let hear = (): void => {};
    const heard = new Promise<void>((resolve) => (hear = resolve));
    const server = new Server({ name: 'mail', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: 'send', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
        { name: 'lookup', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      metas.push(request.params._meta);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 50);
        extra.signal.addEventListener('abort', () => {
          aborted.push(extra.requestId);
          hear();
          clearTimeout(timer);
          resolve(undefined);
        });
      });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'app', version: '1.0.0' }, { capabilities: {} });
    await client.connect(a);
    return { client, metas, aborted, heard };
  }

  it('outside any run: a run of its own with the tool call, answered: mcp_result; the trace context reached the server; the frozen params untouched', async () => {
    const { client, metas } = await connected();
    await client.listTools();
    const params = Object.freeze({ name: 'send', arguments: Object.freeze({ to: 'a' }) });
    const result = await client.callTool(params);
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    const spans = (await capture.spans()).filter((s) => s.attributes['afterstop.framework'] === 'mcp');
    const [tool] = spans.filter((s) => s.name === 'execute_tool send');
    expect(tool!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'afterstop.mcp.server': 'mail',
      'afterstop.mcp.side': 'client',
      'afterstop.tool.effect': 'irreversible',
      'afterstop.tool.result': 'delivered',
    });
    expect(tool!.attributes['afterstop.mcp.cancel.via']).toBeUndefined();
    const [run] = spans.filter((s) => s.name === 'invoke_agent');
    expect(run!.attributes['afterstop.run.outcome']).toBe('completed');
    expect(named(spans, 'afterstop.tool.commit').map((c) => [c.attributes['afterstop.tool.commit.evidence'], c.attributes['jsonrpc.request.id']])).toEqual([['mcp_result', tool!.attributes['jsonrpc.request.id']]]);
    expect(metas).toEqual([{ traceparent: `00-${tool!.traceId}-${tool!.spanId}-01` }]);
    expect(params).toEqual({ name: 'send', arguments: { to: 'a' } });
    await client.close();
  });

  it('inside a tool: that span is the MCP call (no second span); a read-only tool writes no commit; an effect the app gave wins', async () => {
    const { client } = await connected();
    await client.listTools();
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'lookup', callId: 'c1', detectCommits: true }, () => client.callTool({ name: 'lookup', arguments: {} }));
    await run.tool({ name: 'send', callId: 'c2', detectCommits: true, effect: 'reversible' }, () => client.callTool({ name: 'send', arguments: {} }));
    run.end();
    const spans = await capture.spans(run.id);
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['afterstop.tool.effect'], s.attributes['mcp.method.name']])).toEqual([
      ['c1', 'read', 'tools/call'],
      ['c2', 'reversible', 'tools/call'],
    ]);
    expect(named(spans, 'afterstop.tool.commit').map((c) => c.attributes['gen_ai.tool.call.id'])).toEqual(['c2']);
    await client.close();
  });

  it("aborted by its signal: the McpError is an abort, request_sent, the cancel crossed as the client's notification", async () => {
    const { client } = await connected();
    const stop = new AbortController();
    const pending = client.callTool({ name: 'send', arguments: {} }, undefined, { signal: stop.signal });
    setImmediate(() => stop.abort());
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    // The SDK's own error, as without afterstop (an McpError), known for the abort it is.
    expect((error as Error).constructor.name).toBe('McpError');
    expect(isAbortError(error)).toBe(true);
    const spans = (await capture.spans()).filter((s) => s.attributes['afterstop.framework'] === 'mcp');
    const tool = spans.filter((s) => s.name === 'execute_tool send').at(-1)!;
    expect(tool.attributes).toMatchObject({ 'afterstop.tool.result': 'cancelled', 'afterstop.mcp.cancel.via': 'notification' });
    const id = tool.attributes['jsonrpc.request.id'];
    const mine = (s: { attributes: Record<string, unknown> }) => s.attributes['gen_ai.tool.call.id'] === tool.attributes['gen_ai.tool.call.id'];
    expect(
      named(spans, 'afterstop.tool.commit')
        .filter(mine)
        .map((c) => [c.attributes['afterstop.tool.commit.evidence'], c.attributes['jsonrpc.request.id']]),
    ).toEqual([['request_sent', id]]);
    expect(
      named(spans, 'afterstop.mcp.cancel')
        .filter(mine)
        .map((c) => c.attributes['afterstop.mcp.cancel.via']),
    ).toEqual(['notification']);
    await client.close();
  });

  describe('with the guard (its fence on)', () => {
    beforeAll(() => setup({ guard: { fence: true } }));
    afterAll(() => setup({ guard: { fence: false } }));

    it('the run stopped while a call its client was not told to abort is in flight: the guard writes notifications/cancelled, and the server hears it', async () => {
      const { client, aborted, heard } = await connected();
      const run = startRun({ framework: 'manual' });
      const error = await run
        .tool({ name: 'send', callId: 'g1', detectCommits: true }, async () => {
          // No signal: the client sends no cancel of its own, and would wait for an answer the cancelled server
          // never sends: once the server heard the cancel, the app closes the client.
          const pending = client.callTool({ name: 'send', arguments: {} });
          setImmediate(() => void run.cancel());
          void heard.then(() => client.close());
          return pending;
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      run.end({ error });
      expect(aborted).toHaveLength(1);
      const spans = await capture.spans(run.id);
      const cancels = named(spans, 'afterstop.mcp.cancel');
      expect(cancels.map((c) => [c.attributes['afterstop.mcp.cancel.via'], c.attributes['afterstop.guard.mcp_cancel'], c.attributes['jsonrpc.request.id']])).toEqual([['notification', true, String(aborted[0])]]);
      expect(spans.find((s) => s.name === 'execute_tool send')!.attributes['afterstop.mcp.cancel.via']).toBe('notification');
      await client.close();
    });

    it('a tools/call after its run was stopped is refused: an abort error, a prevented commit, nothing reaches the server', async () => {
      const { client, metas } = await connected();
      const run = startRun({ framework: 'manual' });
      await run.cancel();
      const error = await run
        .tool({ name: 'send', callId: 'g2', detectCommits: true }, () => client.callTool({ name: 'send', arguments: {} }))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      run.end({ error });
      expect(CommitFencedError.isInstance(error)).toBe(true);
      expect((error as Error).name).toBe('AbortError');
      expect(metas).toEqual([]);
      const prevented = named(await capture.spans(run.id), 'afterstop.tool.commit.prevented');
      expect(prevented.map((p) => [p.attributes['mcp.method.name'], p.attributes['afterstop.mcp.server']])).toEqual([['tools/call', 'mail']]);
      await client.close();
    });
  });

  it('unpatched, the originals', () => {
    const other = { Client } as unknown as Record<string, unknown>;
    sdk.unpatch!(other, '1.32.2');
    expect(Client.prototype.request).toBe(originalRequest);
    expect(Client.prototype.listTools).toBe(originalListTools);
    sdk.patch!(other, '1.32.2');
  });
});
