import { isWrapped } from '@opentelemetry/instrumentation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerInstrumentation } from '../../auto/mcp-server.js';
import { captureTraces, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The MCP server patch in this process, applied to the real SDK's ESM exports (what the loader hook hands it
 * under afterstop/register), a client beside it over the SDK's in-memory transport: on, a tools/call is a
 * server tool span; after disable(), the prototypes are unwrapped, the server already connected records
 * nothing, and the client gets the same result.
 */
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

type Definition = { name: string; patch?: (exports: unknown, version?: string) => unknown; unpatch?: (exports: unknown) => void };

describe('switching the MCP server instrumentation off', () => {
  it('McpServer: a tools/call is a server tool span while on; once off, nothing is recorded and the result is the same', async () => {
    const instrumentation = new McpServerInstrumentation({ enabled: false });
    instrumentation.enable();
    const mcp = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const index = await import('@modelcontextprotocol/sdk/server/index.js');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const definitions = (instrumentation.getModuleDefinitions() as Definition[]).filter((d) => d.patch !== undefined);
    const patchOf = (name: string) => definitions.find((d) => d.name === name)!;
    patchOf('@modelcontextprotocol/sdk/server/mcp.js').patch!(mcp, '1.32.2');
    patchOf('@modelcontextprotocol/sdk/server/index.js').patch!(index, '1.32.2');
    const protocol = Object.getPrototypeOf(index.Server.prototype) as Record<string, unknown>;
    expect(isWrapped(mcp.McpServer.prototype.connect)).toBe(true);
    expect(isWrapped(protocol['setRequestHandler'])).toBe(true);

    const server = new mcp.McpServer({ name: 'echo', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echo', annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: {} });
    await client.connect(clientSide);
    const first = await client.callTool({ name: 'echo', arguments: {} });
    const spans = () => capture.spans().then((all) => all.filter((s) => s.name === 'execute_tool echo'));
    expect((await spans()).map((s) => [s.attributes['afterstop.mcp.side'], s.attributes['afterstop.tool.effect']])).toEqual([['server', 'read']]);

    instrumentation.disable();
    patchOf('@modelcontextprotocol/sdk/server/mcp.js').unpatch!(mcp);
    patchOf('@modelcontextprotocol/sdk/server/index.js').unpatch!(index);
    expect(isWrapped(mcp.McpServer.prototype.connect)).toBe(false);
    expect(isWrapped(protocol['setRequestHandler'])).toBe(false);
    expect(isWrapped(protocol['connect'])).toBe(false);
    const second = await client.callTool({ name: 'echo', arguments: {} });
    expect(second).toEqual(first);
    expect(await spans()).toHaveLength(1);
    await client.close();
  });
});
