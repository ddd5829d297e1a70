import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/**
 * clock-pair-facts.sql (issue 49): per trace, at ingest, each (client span, server span) of two processes whose
 * server span is the client's child: an HTTP request (CLIENT → SERVER), answered when the client saw a status; an
 * MCP tools/call (the client's execute_tool → afterstop's server span), answered when it ended without ERROR and
 * was not cancelled. C = 100 ms.
 */
describe('clock-pair-facts', () => {
  it('keeps an HTTP pair answered or not, an MCP pair; none within one process', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'list_orders', callId: 'p0', startMs: 5, endMs: 16, effect: 'read' });
    const answered = r.request({ callId: 'p0', startMs: 5, endMs: 15, status: 200, method: 'GET' });
    r.serviceSpan({ name: 'GET /orders', parent: answered, kind: 2, startMs: 6, endMs: 14 });
    r.tool({ name: 'send_order', callId: 'c1', startMs: 80, endMs: 150, result: 'cancelled' });
    const lost = r.request({ callId: 'c1', startMs: 80, endMs: 150 });
    r.serviceSpan({ name: 'POST /orders', parent: lost, kind: 2, startMs: 95, endMs: 300 });
    // A SERVER span of the agent's own process under its own request (a loopback call): one clock, no pair.
    const loopback = r.request({ callId: 'c1', startMs: 91, endMs: 92, status: 200 });
    r.span({ name: 'GET /health', kind: 2, parent: loopback, startMs: 91, endMs: 92 });
    // An MCP tools/call answered by afterstop's server in its own process.
    const call = r.tool({ name: 'send_email', callId: 'm1', startMs: 20, endMs: 40, attrs: { 'mcp.method.name': 'tools/call', 'afterstop.mcp.side': 'client' } });
    r.mcpServer({ tool: 'send_email', parent: call, startMs: 21, endMs: 39, commitCount: 0 });
    const a = await analyzeTraces(t);
    const pairs = await a.table('clock_pair_facts', 'ORDER BY client_start_ns');
    a.close();
    expect(pairs.map((p) => [p['client_process'], p['server_process'], relMs(p['client_start_ns']), relMs(p['client_end_ns']), relMs(p['server_start_ns']), p['answered']])).toEqual([
      ['svc', 'orders-api-1', 5, 15, 6, true],
      ['svc', 'mcp-server', 20, 40, 21, true],
      ['svc', 'orders-api-1', 80, 150, 95, false],
    ]);
  });

  it('is forgotten with its trace when the trace is read again (forget-facts.sql), and with its run (prune-facts.sql)', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.tool({ name: 'list_orders', callId: 'p0', startMs: 5, endMs: 16, effect: 'read' });
    r.serviceSpan({ name: 'GET /orders', parent: r.request({ callId: 'p0', startMs: 5, endMs: 15, status: 200 }), kind: 2, startMs: 6, endMs: 14 });
    const file = t.write();
    const a = await analyzeTraces([file, file]);
    const pairs = await a.table('clock_pair_facts');
    // The retention forgets them with the client span's run (prune-facts.sql).
    await a.forgetRun(r);
    const pruned = await a.table('clock_pair_facts');
    a.close();
    expect(pairs.map((p) => p['run_id'])).toEqual([r.spanId]);
    expect(pruned).toEqual([]);
  });
});
