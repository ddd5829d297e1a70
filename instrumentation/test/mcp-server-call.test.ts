import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { effectOfToolAnnotations, startMcpServerCall, type McpCancelVia } from '../mcp-server-call.js';
import { captureTraces, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * The server side of an MCP tools/call (mcp-server-call.ts), driven as the mcp-server instrumentation drives it:
 * its parent from `params._meta`, the signal handed to the handler, the cancel, the end.
 */
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

function call(requestId: number, meta: unknown = { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` }) {
  const c = startMcpServerCall({ toolName: 'send_email', requestId, meta, effect: 'irreversible', transport: 'pipe', sessionId: undefined }, { to: 'a' })!;
  const sdk = new AbortController();
  const signal = c.watchSignal(sdk.signal, (): McpCancelVia => 'notification');
  return { c, sdk, signal };
}

const spanOf = async (id: number) => (await capture.spans()).find((s) => s.name === 'execute_tool send_email' && s.attributes['jsonrpc.request.id'] === String(id))!;

describe('the server side of an MCP tools/call', () => {
  it('its parent is the traceparent of params._meta (tracestate kept); a malformed one gives a trace of its own', async () => {
    const a = call(1, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'vendor=x' });
    a.c.end({ value: {} });
    const b = call(2, { traceparent: 'not-a-traceparent' });
    b.c.end({ value: {} });
    const [first, second] = [await spanOf(1), await spanOf(2)];
    expect([first.traceId, first.parentSpanId, first.kind]).toEqual([TRACE_ID, SPAN_ID, 2]);
    expect(second.parentSpanId).toBe('');
    expect(second.traceId).not.toBe(TRACE_ID);
    expect(first.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'mcp:1', 'afterstop.mcp.side': 'server', 'network.transport': 'pipe', 'afterstop.tool.signal_observed': false });
    expect(first.attributes['afterstop.mcp.handler']).toBeUndefined();
  });

  it('a handler that never touched its signal and failed after the cancel: finished_after_cancel, not observed (afterstop reading the abort reason at the end does not count)', async () => {
    const { c, sdk } = call(3);
    sdk.abort('Stop');
    c.end({ error: new TypeError('mail server down') });
    const span = await spanOf(3);
    expect(span.attributes).toMatchObject({ 'afterstop.mcp.handler': 'finished_after_cancel', 'afterstop.tool.signal_observed': false, 'error.type': 'TypeError', 'afterstop.mcp.cancel.via': 'notification' });
    const markers = (await capture.spans()).filter((s) => s.name === 'afterstop.mcp.cancel.received' && s.parentSpanId === span.spanId);
    expect(markers.map((m) => m.attributes['jsonrpc.request.id'])).toEqual(['3']);
  });

  it('a handler that listened to its signal and ended by its abort: stopped, cancelled', async () => {
    const { c, sdk, signal } = call(4);
    const heard = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
    sdk.abort('Stop');
    expect(await heard).toBe('Stop');
    c.end({ error: signal.reason });
    expect((await spanOf(4)).attributes).toMatchObject({ 'afterstop.mcp.handler': 'stopped', 'afterstop.tool.signal_observed': true, 'error.type': 'cancelled' });
  });

  it("McpServer's isError result for the abort the callback threw: cancelled", async () => {
    const { c, sdk, signal } = call(5);
    sdk.abort('Stop');
    expect(signal.aborted).toBe(true);
    c.toolThrew(signal.reason);
    c.end({ value: { content: [{ type: 'text', text: 'Stop' }], isError: true } });
    expect((await spanOf(5)).attributes).toMatchObject({ 'afterstop.mcp.handler': 'stopped', 'error.type': 'cancelled' });
  });

  it('a cancel its signal never got (a closed stream the SDK does not pass on): finished_after_cancel, even when it read the signal', async () => {
    const { c, signal } = call(6);
    expect(signal.aborted).toBe(false);
    c.cancelReceived('stream_closed');
    c.end({ value: {} });
    expect((await spanOf(6)).attributes).toMatchObject({ 'afterstop.mcp.handler': 'finished_after_cancel', 'afterstop.tool.signal_observed': true, 'afterstop.mcp.cancel.via': 'stream_closed' });
  });

  it('a traceparent whose trace is not sampled: the sampler drops the call, and stderr says so', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { c } = call(7, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });
      c.end({ value: {} });
      expect(write.mock.calls.map((args) => String(args[0])).filter((line) => line.includes('not sampled'))).toHaveLength(1);
    } finally {
      write.mockRestore();
    }
    expect(await spanOf(7)).toBeUndefined();
  });

  it('the effect class from the tool annotations', () => {
    expect([{ readOnlyHint: true }, { destructiveHint: true }, { idempotentHint: true }, { openWorldHint: true }, undefined, { readOnlyHint: true, destructiveHint: true }].map(effectOfToolAnnotations)).toEqual([
      'read',
      'irreversible',
      'idempotent',
      'unknown',
      'unknown',
      'read',
    ]);
  });
});
