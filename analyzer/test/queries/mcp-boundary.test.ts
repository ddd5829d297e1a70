import { describe, expect, it } from 'vitest';
import { type Analyzed, analyzeTraces, ns, type Run, traces } from '../../../test/helpers/trace-builder.js';

/**
 * The Stop across an MCP boundary (issue 48; METRICS.md §2, §8): a client's tools/call and the server's side of it,
 * joined by the traceparent the request carried (assign-runs.sql), read by tool-call-facts.sql,
 * ghost-commit-facts.sql, run-facts.sql, prepare-cancel-depth.sql and findings.sql. C = 100 ms.
 */

/** The attributes afterstop's MCP client writes on its tool span (the shared contract). */
const client = (via?: 'notification' | 'stream_closed' | 'none', requestId = '7'): Record<string, string> => ({
  'mcp.method.name': 'tools/call',
  'jsonrpc.request.id': requestId,
  'network.transport': 'pipe',
  'afterstop.mcp.side': 'client',
  'afterstop.mcp.server': 'mail-server',
  'afterstop.tool.out_of_sight': 'mcp',
  ...(via ? { 'afterstop.mcp.cancel.via': via } : {}),
});
/** The client's own commit of its tools/call: the request written, its answer lost at the Stop. */
const requestSent = (r: Run, callId: string, atMs: number): string => r.commit({ callId, atMs, evidence: 'request_sent', unansweredMs: 40, attrs: { 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': '7' } });

const stopped = (t: ReturnType<typeof traces>): Run => {
  const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.ack(120);
  return r;
};

/** The run's ghost commits as the report decides them (prepare-ghost-commits.sql, with the clock bound of issue 49). */
const ghostsOf = async (a: Analyzed, r: Run) =>
  (await a.table('report_ghost_commits', 'ORDER BY time_ns')).filter((g) => g['run_id'] === r.spanId).map((g) => [g['tool'], g['tool_call_id'], g['possible_kind'], g['span_id']]);

describe('the Stop across an MCP boundary', () => {
  it("the server's tools/call under the client's call is that call's far half: its commit after Stop is the call's known ghost and supersedes the client's possible one; no second tool call", async () => {
    const t = traces();
    const r = stopped(t);
    const call = r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 105, result: 'cancelled', attrs: client('notification') });
    requestSent(r, 'c1', 105);
    // The request reached the server after Stop: its side began then, not a new call of the loop (level 1).
    const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 102, endMs: 400, handler: 'finished_after_cancel', commitCount: 1 });
    server.toolStart(102);
    server.cancelReceived(110);
    const mail = server.commit(300);
    const a = await analyzeTraces(t);
    const spans = await a.table('report_spans', `WHERE span_id = '${server.spanId}'`);
    const calls = await a.table('tool_call_facts');
    const ghosts = await ghostsOf(a, r);
    const depth = (await a.table('report_cancel_depth'))[0];
    a.close();
    // The server span names no run: it takes the client's run and call id, as nothing of its own.
    expect(spans.map((s) => [s['role'], s['run_id'], s['tool_call_id']])).toEqual([['mcp_server', r.spanId, 'c1']]);
    expect(calls.map((c) => [c['call_id'], c['mcp_request_id'], c['mcp_server'], c['mcp_cancel_via'], c['mcp_handler'], c['received_via']])).toEqual([
      ['c1', '7', 'mail-server', 'notification', 'finished_after_cancel', 'notification'],
    ]);
    expect([calls[0]!['server_end_ns'], calls[0]!['cancel_received_ns']]).toEqual([ns(400), ns(110)]);
    // Known, dated in the server's process; the client's request_sent and out_of_sight are not counted beside it.
    expect(ghosts).toEqual([['send_email', 'c1', null, mail]]);
    expect(depth).toMatchObject({ depth: 3, loop_ok: true, tools_ok: true, effects_ok: false });
  });

  it("the client's evidence stands beside a server that did not watch: another instrumentation's server span, afterstop's counting a commit the store lost, or one whose work went out of its sight", async () => {
    const t = traces();
    const foreign = stopped(t);
    const call = foreign.tool({ name: 'send_email', callId: 'f1', startMs: 50, endMs: 105, result: 'cancelled', attrs: client('notification') });
    foreign.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 400, foreign: true });
    const lost = stopped(t);
    const lostCall = lost.tool({ name: 'send_email', callId: 'l1', startMs: 50, endMs: 105, result: 'cancelled', attrs: client('notification') });
    const sent = requestSent(lost, 'l1', 105);
    const server = lost.mcpServer({ tool: 'send_email', parent: lostCall, startMs: 60, endMs: 400, handler: 'finished_after_cancel', commitCount: 2 });
    const kept = server.commit(300);
    // afterstop's server whose own work went out of its sight (it passed the call on to a subprocess).
    const passed = stopped(t);
    const passedCall = passed.tool({ name: 'send_email', callId: 'p1', startMs: 50, endMs: 105, result: 'cancelled', attrs: client('notification') });
    const passedSent = requestSent(passed, 'p1', 105);
    passed.mcpServer({ tool: 'send_email', parent: passedCall, startMs: 60, endMs: 400, commitCount: 0, outOfSight: 'subprocess' });
    const a = await analyzeTraces(t);
    const calls = await a.table('tool_call_facts', 'ORDER BY call_id');
    const [foreignGhosts, lostGhosts, passedGhosts] = [await ghostsOf(a, foreign), await ghostsOf(a, lost), await ghostsOf(a, passed)];
    a.close();
    // Another instrumentation's `tools/call {tool}` SERVER span is joined too: not a tool call of the run.
    expect(calls.map((c) => [c['call_id'], c['server_end_ns']])).toEqual([
      ['f1', ns(400)],
      ['l1', ns(400)],
      ['p1', ns(400)],
    ]);
    expect(passedGhosts).toEqual([['send_email', 'p1', 'request_sent', passedSent]]);
    expect(foreignGhosts).toEqual([['send_email', 'f1', 'out_of_sight', call]]);
    expect(lostGhosts).toEqual([
      ['send_email', 'l1', 'request_sent', sent],
      ['send_email', 'l1', null, kept],
    ]);
  });

  it("an mcp_result commit (the server answered: it ran the tool) after Stop is a known ghost, dated at the answer; a watched server's commit before Stop supersedes it", async () => {
    const t = traces();
    const alone = stopped(t);
    alone.tool({ name: 'send_email', callId: 'm1', startMs: 50, endMs: 200, attrs: client() });
    const answer = alone.commit({ callId: 'm1', atMs: 200, evidence: 'mcp_result', attrs: { 'mcp.method.name': 'tools/call' } });
    const joined = stopped(t);
    const call = joined.tool({ name: 'send_email', callId: 'm2', startMs: 50, endMs: 200, attrs: client() });
    joined.commit({ callId: 'm2', atMs: 200, evidence: 'mcp_result', attrs: { 'mcp.method.name': 'tools/call' } });
    const server = joined.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 190, commitCount: 1 });
    server.commit(90);
    // The server's clock is not the client's (issue 49): an earlier call answered within 2 ms bounds their offset
    // to [-1, +1] ms, so its commit at 90 ms is before Stop in the client's clock too (this call alone allows
    // [-140, +10] ms, which would leave it possible).
    const quick = joined.tool({ name: 'send_email', callId: 'm0', startMs: 10, endMs: 12, attrs: client(undefined, '6') });
    joined.mcpServer({ tool: 'send_email', parent: quick, startMs: 11, endMs: 11.5, requestId: '6', commitCount: 0 });
    const a = await analyzeTraces(t);
    const [aloneGhosts, joinedGhosts] = [await ghostsOf(a, alone), await ghostsOf(a, joined)];
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [d['run_id'], d['depth']]));
    a.close();
    expect(aloneGhosts).toEqual([['send_email', 'm1', null, answer]]);
    expect(joinedGhosts).toEqual([]);
    expect([depth[alone.spanId], depth[joined.spanId]]).toEqual([3, 4]);
  });

  it('a Stop that did not cross to the server (afterstop.mcp.cancel.via = none) holds cancel depth below 4 and is a finding; one that crossed is not', async () => {
    const t = traces();
    // Read-only and watched: no ghost, possible or known; only the boundary holds the depth.
    const none = stopped(t);
    none.tool({ name: 'search', callId: 'n1', startMs: 50, endMs: 105, effect: 'read', result: 'cancelled', attrs: client('none', '11') });
    const crossed = stopped(t);
    crossed.tool({ name: 'search', callId: 'x1', startMs: 50, endMs: 105, effect: 'read', result: 'cancelled', attrs: client('stream_closed') });
    const watched = stopped(t);
    const call = watched.tool({ name: 'send_email', callId: 'w1', startMs: 50, endMs: 105, result: 'cancelled', attrs: client('none') });
    watched.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 150, commitCount: 0 });
    // Done before Stop: nothing was in flight to tell.
    const before = stopped(t);
    before.tool({ name: 'search', callId: 'b1', startMs: 10, endMs: 60, effect: 'read', attrs: client('none') });
    const a = await analyzeTraces(t);
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [d['run_id'], [d['depth'], d['effects_ok']]]));
    const ghosts = await a.table('ghost_commit_facts');
    const findings = (await a.rows('findings', { limit: 100n })).filter((f) => String(f['kind']).startsWith('mcp_'));
    a.close();
    expect([depth[none.spanId], depth[crossed.spanId], depth[watched.spanId], depth[before.spanId]]).toEqual([
      [3, false],
      [4, true],
      [3, false],
      [4, true],
    ]);
    expect(ghosts).toEqual([]);
    expect(findings.map((f) => [f['kind'], f['run_id'], f['tool'], f['time_ns']])).toEqual([
      ['mcp_cancel_not_propagated', none.spanId, 'search', ns(100)],
      ['mcp_cancel_not_propagated', watched.spanId, 'send_email', ns(100)],
    ]);
    expect(findings[0]!['detail']).toBe(
      'search call n1 (MCP request 11 to mail-server) was in flight at Stop and the Stop did not cross to the server: no notifications/cancelled was sent and its request stream was not closed, so the server was left to run the tool',
    );
  });

  it("a server handler that received the cancel and finished anyway is a finding; one that ran on past the budget fails level 3 though the client's call ended at once", async () => {
    const t = traces();
    const r = stopped(t);
    const call = r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 105, effect: 'read', result: 'cancelled', attrs: client('notification') });
    const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 1500, handler: 'finished_after_cancel', commitCount: 0 });
    server.cancelReceived(110);
    const honoured = stopped(t);
    const call2 = honoured.tool({ name: 'search', callId: 'h1', startMs: 50, endMs: 105, effect: 'read', result: 'cancelled', attrs: client('notification') });
    honoured.mcpServer({ tool: 'search', parent: call2, startMs: 60, endMs: 112, handler: 'stopped' }).cancelReceived(110);
    const a = await analyzeTraces(t);
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [d['run_id'], d['depth']]));
    const findings = (await a.rows('findings', { limit: 100n })).filter((f) => String(f['kind']).startsWith('mcp_'));
    a.close();
    expect([depth[r.spanId], depth[honoured.spanId]]).toEqual([2, 4]);
    expect(findings.map((f) => [f['kind'], f['run_id'], f['time_ns'], f['detail']])).toEqual([
      [
        'mcp_handler_finished_after_cancel',
        r.spanId,
        ns(1500),
        'send_email call c1 (MCP request 7): the server mail-server received the cancel (notification) 10.000 ms after Stop and its handler finished its work anyway, 1400.000 ms after Stop: the Stop crossed the boundary and was not honoured',
      ],
    ]);
  });

  it("a server's tools/call with no client in the store is a run of its own, stopped by the cancel it received: its commits after it are known ghosts; a handler that stopped on it acknowledged it", async () => {
    const t = traces();
    const host = t.run({ startMs: 0, endMs: 10 }); // only a builder for the server's own traces
    const ran = host.mcpServer({ tool: 'send_email', parent: null, startMs: 1000, endMs: 1400, handler: 'finished_after_cancel', commitCount: 1 });
    ran.cancelReceived(1100, 'stream_closed');
    const mail = ran.commit(1300);
    const stoppedServer = host.mcpServer({ tool: 'send_email', parent: null, startMs: 2000, endMs: 2120, handler: 'stopped', commitCount: 0 });
    stoppedServer.cancelReceived(2100);
    const untold = host.mcpServer({ tool: 'send_email', parent: null, startMs: 3000, endMs: 3400, commitCount: 1 });
    untold.commit(3300);
    // Its client sent a traceparent, and its spans went elsewhere: the same, under a parent never exported.
    const elsewhere = host.mcpServer({ tool: 'send_email', parent: 'missing', startMs: 4000, endMs: 4400, handler: 'finished_after_cancel', commitCount: 1 });
    elsewhere.cancelReceived(4100);
    const late = elsewhere.commit(4300);
    const a = await analyzeTraces(t);
    const runs = Object.fromEntries((await a.table('run_facts')).map((f) => [f['run_id'], f]));
    const ghosts = (await a.table('ghost_commit_facts', 'ORDER BY time_ns')).map((g) => [g['run_id'], g['span_id'], g['possible_kind'], g['after_stop_ns']]);
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [d['run_id'], d['depth']]));
    const findings = (await a.rows('findings', { limit: 100n })).filter((f) => f['kind'] !== 'ghost_commit');
    a.close();
    expect(runs[ran.spanId]).toMatchObject({ cancelled: true, has_request: true, c_ns: ns(1100), a_ns: null, service: 'mcp-server', cancel_source: 'mcp', mcp_handler: 'finished_after_cancel' });
    expect(runs[stoppedServer.spanId]).toMatchObject({ cancelled: true, c_ns: ns(2100), a_ns: ns(2120), mcp_handler: 'stopped' });
    // Its handler finished after the cancel: said as such, not as a loop that never acknowledged a Stop.
    expect(findings.map((f) => [f['kind'], f['run_id'], f['detail']])).toEqual([
      [
        'mcp_handler_finished_after_cancel',
        ran.spanId,
        "an MCP server's tools/call (its client not in the store) received the cancel and its handler finished its work anyway, 300.000 ms after Stop: the Stop crossed the boundary and was not honoured",
      ],
      [
        'mcp_handler_finished_after_cancel',
        elsewhere.spanId,
        "an MCP server's tools/call (its client not in the store) received the cancel and its handler finished its work anyway, 300.000 ms after Stop: the Stop crossed the boundary and was not honoured",
      ],
    ]);
    expect(runs[untold.spanId]).toMatchObject({ cancelled: false, c_ns: null });
    expect(runs[elsewhere.spanId]).toMatchObject({ cancelled: true, unended: false, c_ns: ns(4100) });
    expect(ghosts).toEqual([
      [ran.spanId, mail, null, 200_000_000],
      [elsewhere.spanId, late, null, 200_000_000],
    ]);
    expect([depth[ran.spanId], depth[stoppedServer.spanId], depth[elsewhere.spanId]]).toEqual([3, 4, 3]);
  });

  it("another instrumentation's MCP client span (`tools/call {tool}`, kind CLIENT) is a tool call of its run", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', stamp: false, name: 'invoke_agent mailer' });
    r.span({ name: 'tools/call send_email', kind: 3, startMs: 50, endMs: 400, scope: '@example/mcp-otel', attrs: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'send_email', 'jsonrpc.request.id': '3' } });
    const a = await analyzeTraces(t);
    const calls = await a.table('tool_call_facts');
    a.close();
    expect(calls.map((c) => [c['tool_name'], c['mcp_request_id'], c['has_span']])).toEqual([['send_email', '3', true]]);
  });

  it("another instrumentation's client run with afterstop's server joined: its Stop still inferred from its abort, the server's commit after it known, the client's call not inferred beside it", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, stamp: false, name: 'invoke_agent mailer' });
    r.span({ name: 'chat gpt-4o', kind: 3, startMs: 10, endMs: 100, scope: '@example/genai', status: 'error', attrs: { 'gen_ai.operation.name': 'chat', 'error.type': 'cancelled' } });
    const call = r.span({
      name: 'tools/call send_email',
      kind: 3,
      startMs: 50,
      endMs: 400,
      scope: '@example/mcp-otel',
      attrs: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'send_email', 'gen_ai.tool.call.id': 'fc1' },
    });
    const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 350, handler: 'finished_after_cancel', commitCount: 1 });
    server.toolStart(60);
    const mail = server.commit(300);
    const a = await analyzeTraces(t);
    const run = (await a.table('run_facts'))[0];
    const ghosts = (await a.table('ghost_commit_facts')).map((g) => [g['tool_call_id'], g['span_id'], g['possible_kind'], g['inferred']]);
    const facts = (await a.table('cancel_span_facts'))[0];
    a.close();
    expect(run).toMatchObject({ cancelled: true, cancel_inferred: true, c_ns: ns(100) });
    expect(facts).toMatchObject({ tool_evidence: false });
    expect(ghosts).toEqual([['fc1', mail, null, false]]);
  });

  it("a framework afterstop does not patch, stopped by its own abort (an inferred Stop): its foreign tool's commit after it, seen by afterstop's detector, is a known ghost; the Stop is still inferred; a tool without a marker is still inferred", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, stamp: false, name: 'invoke_agent adk' });
    r.span({ name: 'chat gemini', kind: 3, startMs: 10, endMs: 100, scope: 'foreign', status: 'error', attrs: { 'gen_ai.operation.name': 'chat', 'error.type': 'cancelled' } });
    const sent = r.tool({ name: 'send_email', callId: 'adk-1', startMs: 50, endMs: 400, startMarker: false });
    // Outside an afterstop run: no afterstop.run.id, no cancel state (SEMCONV.md, foreign tool calls).
    const marker = r.span({ name: 'afterstop.tool.commit', parent: sent, startMs: 300, attrs: { 'gen_ai.tool.name': 'send_email', 'afterstop.tool.foreign': true, 'afterstop.tool.commit.evidence': 'response' } });
    r.tool({ name: 'archive', callId: 'adk-2', startMs: 60, endMs: 500, startMarker: false });
    const a = await analyzeTraces(t);
    const run = (await a.table('run_facts'))[0];
    const ghosts = (await a.table('ghost_commit_facts', 'ORDER BY time_ns')).map((g) => [g['tool'], g['span_id'], g['inferred'], g['possible_kind']]);
    const depth = (await a.table('report_cancel_depth'))[0];
    a.close();
    expect(run).toMatchObject({ cancelled: true, cancel_inferred: true, c_ns: ns(100) });
    expect(ghosts).toEqual([
      ['send_email', marker, false, null],
      ['archive', expect.any(String), true, null],
    ]);
    expect(depth).toMatchObject({ depth: 3, effects_ok: false });
  });

  it("a foreign execute_tool span's commit markers (afterstop.tool.foreign) without a call id are its commits: one known ghost, not a possible one beside it", async () => {
    const t = traces();
    const r = stopped(t);
    const tool = r.tool({ name: 'send_email', startMs: 50, endMs: 400, startMarker: false }); // another tracer's span: no commit count
    const mail = r.marker('afterstop.tool.commit', 300, { 'gen_ai.tool.name': 'send_email', 'afterstop.tool.foreign': true, 'afterstop.tool.commit.evidence': 'response' }, tool);
    // Google ADK sets its span's gen_ai.tool.call.id at the end, after the marker was written without it.
    const adk = stopped(t);
    const adkTool = adk.tool({ name: 'send_email', callId: 'adk-1', startMs: 50, endMs: 400, startMarker: false });
    const adkMail = adk.marker('afterstop.tool.commit', 300, { 'gen_ai.tool.name': 'send_email', 'afterstop.tool.foreign': true, 'afterstop.tool.commit.evidence': 'response' }, adkTool);
    const a = await analyzeTraces(t);
    const [ghosts, adkGhosts] = [await ghostsOf(a, r), await ghostsOf(a, adk)];
    a.close();
    expect(ghosts).toEqual([['send_email', null, null, mail]]);
    expect(adkGhosts).toEqual([['send_email', null, null, adkMail]]);
  });
});
