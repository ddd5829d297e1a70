import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as aiSdkMcp from '@ai-sdk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startRun } from '../../index.js';
import { McpInstrumentation } from '../../auto/mcp.js';
import { captureTraces, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The MCP marker (mcp.ts) on the real clients, patched and unpatched through the instrumentation's own
 * module definitions (what the loader hooks call): a `tools/call` sent inside a tool's body marks the tool
 * span `afterstop.tool.out_of_sight = mcp`; any other request, or one outside a tool, marks nothing; the
 * client's own answer (here its refusal: it is not connected) reaches the caller unchanged; unpatching
 * gives back the originals.
 */
type Json = Record<string, unknown>;
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(async () => {
  await capture.close();
});

const definitions = () => {
  const instrumentation = new McpInstrumentation({ enabled: false });
  const defs = instrumentation.getModuleDefinitions();
  const of = (name: string) => defs.find((d) => d.name === name && typeof d.patch === 'function' && !d.supportedVersions.includes('*'))!;
  return { sdk: of('@modelcontextprotocol/sdk/client/index.js'), aiSdk: of('@ai-sdk/mcp') };
};

const rejection = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: unknown) => String((e as Error).message),
  );

describe('the MCP marker', () => {
  it("@modelcontextprotocol/sdk's Client: tools/call inside a tool marks its span; tools/list and a call outside a tool do not; unpatched, the original", async () => {
    const { sdk } = definitions();
    const exports = { Client } as unknown as Json;
    sdk.patch!(exports, '1.32.2');
    expect(Object.prototype.hasOwnProperty.call(Client.prototype, 'request')).toBe(true);
    const run = startRun({ framework: 'manual' });
    const unpatched = await rejection(Protocol.prototype.request.call(new Client({ name: 'a', version: '1' }), { method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema));
    let seen = '';
    await run.tool({ name: 'send_email', callId: 'call_mcp', detectCommits: true }, async () => {
      seen = await rejection(new Client({ name: 'a', version: '1' }).callTool({ name: 'send_email', arguments: {} }));
    });
    await run.tool({ name: 'list', callId: 'call_list', detectCommits: true }, async () => {
      await rejection(new Client({ name: 'a', version: '1' }).listTools());
    });
    await rejection(new Client({ name: 'a', version: '1' }).callTool({ name: 'outside', arguments: {} }));
    run.end();
    // The client's own refusal, as without afterstop.
    expect(seen).toBe(unpatched);
    const tools = (await capture.spans(run.id)).filter((s) => s.name.startsWith('execute_tool '));
    expect(Object.fromEntries(tools.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['afterstop.tool.out_of_sight']]))).toEqual({ call_mcp: 'mcp', call_list: undefined });
    sdk.unpatch!(exports, '1.32.2');
    expect(Client.prototype.request).toBe(Protocol.prototype.request);
  });

  it('@ai-sdk/mcp: createMCPClient wrapped on a copy of the (read-only) namespace, its failure unchanged; unpatched, the original', async () => {
    const { aiSdk } = definitions();
    const namespace = aiSdkMcp as unknown as Json;
    const patched = aiSdk.patch!(namespace, '1.0.102') as Json;
    expect(patched).not.toBe(namespace);
    expect((patched['createMCPClient'] as { name: string }).name).toBe('observedCreateMCPClient');
    const bad = { transport: { type: 'carrier-pigeon' } };
    const original = await rejection(aiSdkMcp.createMCPClient(bad as never));
    expect(await rejection((patched['createMCPClient'] as typeof aiSdkMcp.createMCPClient)(bad as never))).toBe(original);
    aiSdk.unpatch!(namespace, '1.0.102');
    expect(patched['createMCPClient']).toBe(aiSdkMcp.createMCPClient);
  });
});
