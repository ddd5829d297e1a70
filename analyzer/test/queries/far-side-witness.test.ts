import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { headline } from '../../render/summary.js';
import { type Analyzed, analyzeTraces, ns, type Run, relMs, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/**
 * The far side's witness (issue 49; METRICS.md §2): a service's own spans under a commit's request
 * (assign-runs.sql: role service), the clock pairs of its processes (clock-pair-facts.sql), and what
 * ghost-commit-facts.sql keeps and prepare-commit-verdicts.sql decides at report time with the clock bound.
 * C = 100 ms. `shift` moves every time the service writes (its clock) by that many ms: the verdicts do not move.
 */

const stopped = (t: Traces): Run => {
  const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.ack(120);
  return r;
};

interface Service {
  /** The service's entry span (kind SERVER) under the request span `request`, and its work under it. */
  entry(request: string, startMs: number, endMs: number): string;
  work(entry: string, startMs: number, endMs: number, o?: { failed?: boolean; name?: string }): string;
}

/** A service in its own process whose clock reads `shift` ms off the agent's. */
const service = (r: Run, shift = 0, name = 'orders-api'): Service => ({
  entry: (request, startMs, endMs) =>
    r.serviceSpan({ name: 'POST /orders', parent: request, kind: 2, service: name, startMs: startMs + shift, endMs: endMs + shift, attrs: { 'http.request.method': 'POST', 'http.response.status_code': 200 } }),
  work: (entry, startMs, endMs, o = {}) =>
    r.serviceSpan({
      name: o.name ?? 'INSERT orders',
      parent: entry,
      kind: 3,
      service: name,
      startMs: startMs + shift,
      endMs: endMs + shift,
      attrs: { 'db.system.name': 'postgresql' },
      ...(o.failed ? { status: 'error' as const } : {}),
    }),
});

/** A tool call whose request was cut at 150 ms (its body sent at 90 ms): request_sent, the client's possible ghost. */
const cutRequest = (r: Run, callId: string, o: { sentMs?: number; lostMs?: number } = {}): { request: string; commit: string } => {
  const sent = o.sentMs ?? 90;
  const lost = o.lostMs ?? 150;
  r.tool({ name: 'send_order', callId, startMs: sent - 10, endMs: lost, result: 'cancelled', effect: 'irreversible' });
  const request = r.request({ callId, startMs: sent - 10, endMs: lost });
  const commit = r.commit({ callId, atMs: lost, evidence: 'request_sent', unansweredMs: lost - sent, requestSpanId: request });
  return { request, commit };
};

/** An answered request of the run to the service, before Stop: the clock pair that gives δ_min (here ±1 ms). */
const answeredPair = (r: Run, svc: Service, callId = 'p0'): void => {
  r.tool({ name: 'list_orders', callId, startMs: 5, endMs: 16, effect: 'read' });
  const request = r.request({ callId, startMs: 5, endMs: 15, status: 200, method: 'GET' });
  svc.entry(request, 6, 14);
};

type Verdict = { span_id: unknown; verdict: unknown; possible_kind: unknown; witness: unknown; witness_verdict: unknown; confirmed: unknown; ruled_out: unknown };
const verdictsOf = async (a: Analyzed): Promise<Verdict[]> =>
  (await a.table('report_commit_verdicts', 'ORDER BY span_id')).map((v) => ({
    span_id: v['span_id'],
    verdict: v['verdict'],
    possible_kind: v['possible_kind'],
    witness: v['witness'],
    witness_verdict: v['witness_verdict'],
    confirmed: v['confirmed'],
    ruled_out: v['ruled_out'],
  }));

describe('the far side witness', () => {
  for (const shift of [0, 5000, -5000]) {
    it(`decides a cut request by the service's work, its clock ${shift} ms off: happened after Stop (known), over before Stop (none), failed (none), received alone (possible)`, async () => {
      const t = traces();
      // Stop during the send: the service received the order at 95 ms and wrote it at 200 ms.
      const during = stopped(t);
      const dSvc = service(during, shift);
      const d = cutRequest(during, 'd1');
      dSvc.work(dSvc.entry(d.request, 95, 400), 200, 250);
      // A commit before Stop: the request's answer was lost after Stop, but the write was done at 40 ms; an answered
      // request between the same processes bounds the clocks to ±1 ms.
      const before = stopped(t);
      const bSvc = service(before, shift, 'billing-api');
      answeredPair(before, bSvc);
      const b = cutRequest(before, 'b1', { sentMs: 30, lostMs: 130 });
      bSvc.work(bSvc.entry(b.request, 31, 60), 35, 40);
      // The write failed after the client left.
      const failed = stopped(t);
      const fSvc = service(failed, shift, 'mail-api');
      const f = cutRequest(failed, 'f1');
      fSvc.work(fSvc.entry(f.request, 95, 300), 200, 250, { failed: true });
      // The service received it and did nothing the witness reads: it decides nothing; the request reached it then.
      const received = stopped(t);
      const rSvc = service(received, shift, 'audit-api');
      const rc = cutRequest(received, 'r1');
      rSvc.entry(rc.request, 95, 300);
      const a = await analyzeTraces(t);
      const verdicts = await verdictsOf(a);
      const ghosts = await a.table('report_ghost_commits', 'ORDER BY span_id');
      const total = await a.total('ghost-commits');
      const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((x) => [x['run_id'], x['depth']]));
      a.close();
      const byCommit = Object.fromEntries(verdicts.map((v) => [v.span_id, v]));
      expect(byCommit[d.commit]).toMatchObject({ verdict: 'known', possible_kind: null, witness: 'service', witness_verdict: 'happened', confirmed: true, ruled_out: false });
      expect(byCommit[b.commit]).toMatchObject({ verdict: 'none', witness_verdict: 'happened', confirmed: false, ruled_out: true });
      expect(byCommit[f.commit]).toMatchObject({ verdict: 'none', witness_verdict: 'failed', ruled_out: true });
      expect(byCommit[rc.commit]).toMatchObject({ verdict: 'possible', possible_kind: 'request_sent', witness_verdict: 'received', ruled_out: false });
      // The ghosts the report counts: the known one and the possible one; the ruled out ones hold no depth down.
      expect(ghosts.map((g) => g['span_id']).sort()).toEqual([d.commit, rc.commit].sort());
      expect(total).toMatchObject({ ghost_commits: 1, ghost_commits_possible: 1, ghost_commits_confirmed: 1, ghost_commits_ruled_out: 2 });
      expect([depth[before.spanId], depth[failed.spanId]]).toEqual([4, 4]);
      expect([depth[during.spanId], depth[received.spanId]]).toEqual([3, 3]);
      // The possible ghost's request reached the service at its receipt, mapped: no earlier than 95 ms − δ_max (+15 ms).
      const possible = ghosts.find((g) => g['span_id'] === rc.commit)!;
      expect(relMs(possible['sent_ns'])).toBe(80);
    });
  }

  it('an untraced service leaves the client evidence as it is: request_sent possible, response across Stop possible (across_stop), response after Stop known', async () => {
    const t = traces();
    const r = stopped(t);
    const untraced = cutRequest(r, 'u1');
    r.tool({ name: 'pay', callId: 'x1', startMs: 40, endMs: 160, effect: 'irreversible' });
    const across = r.commit({ callId: 'x1', atMs: 150, evidence: 'response', roundTripMs: 100 });
    r.tool({ name: 'pay', callId: 'y1', startMs: 150, endMs: 310, effect: 'irreversible' });
    const after = r.commit({ callId: 'y1', atMs: 300, evidence: 'response', roundTripMs: 100 });
    // An older afterstop's response marker (no round trip): the point, as before.
    r.tool({ name: 'pay', callId: 'z1', startMs: 140, endMs: 160, effect: 'irreversible' });
    const point = r.commit({ callId: 'z1', atMs: 150, evidence: 'response' });
    const a = await analyzeTraces(t);
    const ghosts = Object.fromEntries((await a.table('report_ghost_commits')).map((g) => [g['span_id'], g]));
    const findings = await a.rows('findings', { limit: 100n });
    a.close();
    expect(ghosts[untraced.commit]).toMatchObject({ possible_kind: 'request_sent', witness: null, confirmed: false });
    expect(ghosts[across]).toMatchObject({ possible_kind: 'across_stop', witness: null });
    expect([relMs(ghosts[across]!['earliest_ns']), relMs(ghosts[across]!['latest_ns'])]).toEqual([50, 150]);
    expect(ghosts[after]).toMatchObject({ possible_kind: null });
    expect(relMs(ghosts[after]!['earliest_ns'])).toBe(200);
    expect(ghosts[point]).toMatchObject({ possible_kind: null });
    expect(findings.filter((f) => f['kind'] === 'possible_ghost_commit').map((f) => f['detail'])).toContain(
      'pay (irreversible) may have committed after Stop: its effect happened between 50.000 ms before Stop and 50.000 ms after Stop (its request was sent before Stop and answered after it)',
    );
  });

  it('a witness inside the clock bound decides nothing: possible across Stop, and a finding names the bound', async () => {
    const t = traces();
    const r = stopped(t);
    const svc = service(r);
    r.tool({ name: 'send_order', callId: 'c1', startMs: 55, endMs: 205, effect: 'irreversible' });
    const request = r.request({ callId: 'c1', startMs: 60, endMs: 200, status: 201 });
    const commit = r.commit({ callId: 'c1', atMs: 200, evidence: 'response', roundTripMs: 130, requestSpanId: request });
    svc.work(svc.entry(request, 62, 195), 95, 105);
    const a = await analyzeTraces(t);
    const ghosts = await a.table('report_ghost_commits');
    const pairs = await a.table('clock_pair_facts');
    const findings = (await a.rows('findings', { limit: 100n })).filter((f) => f['kind'] === 'commit_inside_clock_bound');
    a.close();
    expect(pairs.map((p) => [p['client_process'], p['server_process'], p['answered']])).toEqual([['svc', 'orders-api-1', true]]);
    // δ ∈ [62 − 200, 62 − 60] = [−138, +2] ms: the write at [95, 105] is [93, 243] in the agent's clock.
    expect(ghosts.map((g) => [g['span_id'], g['possible_kind'], relMs(g['earliest_ns']), relMs(g['latest_ns']), Number(g['d_min_ns']) / 1e6, Number(g['d_max_ns']) / 1e6])).toEqual([
      [commit, 'across_stop', 93, 243, -138, 2],
    ]);
    expect(findings.map((f) => f['detail'])).toEqual([
      "send_order (irreversible) witnessed by orders-api: its work (INSERT orders) lies between 7.000 ms before Stop and 143.000 ms after Stop in the agent's clock, so whether it was after Stop is not decided (the service's clock minus the agent's: from -138.000 ms to 2.000 ms)",
    ]);
  });

  it("the report: the figures, the findings, and the summary's line of what the services decided", async () => {
    const t = traces();
    const r = stopped(t);
    const svc = service(r);
    const d = cutRequest(r, 'd1');
    svc.work(svc.entry(d.request, 95, 400), 200, 250);
    const f = stopped(t);
    const fSvc = service(f, 0, 'mail-api');
    const fc = cutRequest(f, 'f1');
    fSvc.work(fSvc.entry(fc.request, 95, 300), 200, 250, { failed: true });
    const prices = fileURLToPath(new URL('../../../test/fixtures/golden/prices.json', import.meta.url));
    const report = await analyze({ inputs: [t.write()], db: ':memory:', pricesFile: prices });
    expect(report.totals).toMatchObject({ ghost_commits: 1, ghost_commits_possible: 0, ghost_commits_confirmed: 1, ghost_commits_ruled_out: 1, cancel_depth: { '3': 1, '4': 1 } });
    // (afterstop's request spans whose answers the Stop cut are no cleanup errors: error.type request_lost.)
    expect(report.findings.map((x) => x.kind).sort()).toEqual(['commit_witnessed_by_service', 'commit_witnessed_by_service', 'ghost_commit', 'orphan_tool_call', 'orphan_tool_call']);
    expect(headline(report).find((l) => l.label === 'Witnessed by the service')?.value).toBe('1 confirmed, 1 ruled out (its own spans, beyond the clock bound)');
  });

  it('finds what the witness decided: confirmed and ruled out', async () => {
    const t = traces();
    const r = stopped(t);
    const svc = service(r);
    const d = cutRequest(r, 'd1');
    svc.work(svc.entry(d.request, 95, 400), 200, 250);
    const f = stopped(t);
    const fSvc = service(f, 0, 'mail-api');
    const fc = cutRequest(f, 'f1');
    fSvc.work(fSvc.entry(fc.request, 95, 300), 200, 250, { failed: true });
    const a = await analyzeTraces(t);
    const findings = (await a.rows('findings', { limit: 100n })).filter((x) => x['kind'] === 'commit_witnessed_by_service').map((x) => x['detail']);
    a.close();
    expect(findings.sort()).toEqual([
      "send_order (irreversible) confirmed by orders-api: its work (INSERT orders) began 85.000 ms after Stop at the earliest (the service's clock minus the agent's: from unbounded to 15.000 ms)",
      'send_order (irreversible) ruled out by mail-api: its work under the request failed, so the effect did not happen',
    ]);
  });

  for (const shift of [5000, -5000]) {
    it(`maps an MCP server's commit through the bound, its clock ${shift} ms off: after Stop in the agent's clock, known`, async () => {
      const t = traces();
      const r = stopped(t);
      const call = r.tool({
        name: 'send_email',
        callId: 'c1',
        startMs: 50,
        endMs: 105,
        result: 'cancelled',
        attrs: { 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': '7', 'afterstop.mcp.side': 'client', 'afterstop.mcp.server': 'mail-server', 'afterstop.tool.out_of_sight': 'mcp' },
      });
      const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 52 + shift, endMs: 400 + shift, handler: 'finished_after_cancel', commitCount: 1 });
      const mail = server.commit(300 + shift);
      const a = await analyzeTraces(t);
      const ghosts = await a.table('report_ghost_commits');
      a.close();
      // δ_max = 2 ms + shift (no answered pair: no δ_min): the commit is no earlier than 298 ms in the agent's clock.
      expect(ghosts.map((g) => [g['span_id'], g['possible_kind'], g['witness'], relMs(g['earliest_ns']), g['latest_ns'], g['confirmed']])).toEqual([[mail, null, 'mcp_server', 298, null, true]]);
    });
  }

  it("a span's process is its resource's service.instance.id, else host and pid, else its service; a SERVER span of the agent's own process is no service's", async () => {
    const t = traces();
    const r = stopped(t);
    r.tool({ name: 'send_order', callId: 'c1', startMs: 80, endMs: 150 });
    const request = r.request({ callId: 'c1', startMs: 80, endMs: 150, status: 200 });
    const byInstance = r.serviceSpan({ name: 'POST /a', parent: request, kind: 2, startMs: 81, endMs: 90, service: 'a-api', instance: 'a-7' });
    const byService = r.serviceSpan({ name: 'POST /b', parent: request, kind: 2, startMs: 82, endMs: 90, service: 'b-api', instance: null });
    const byHost = t.newSpanId();
    t.add('c-api', { traceId: r.traceId, spanId: byHost, parentSpanId: request, name: 'POST /c', kind: 2, startNs: BigInt(0), endNs: BigInt(1), attrs: [] }, [
      ['host.name', 'box'],
      ['process.pid', 4242],
    ]);
    const loopback = r.span({ name: 'GET /health', kind: 2, parent: request, startMs: 83, endMs: 84 });
    const a = await analyzeTraces(t);
    const spans = Object.fromEntries((await a.table('report_spans')).map((x) => [x['span_id'], [x['process_key'], x['role']]]));
    a.close();
    expect([spans[byInstance], spans[byService], spans[byHost], spans[loopback], spans[request]]).toEqual([
      ['a-7', 'service'],
      ['b-api', 'service'],
      ['box/4242', 'service'],
      ['svc', 'other'],
      ['svc', 'other'],
    ]);
  });

  it("a request span the store lacks: the service's entry under the span id the commit names is still the witness, its spans the service's", async () => {
    const t = traces();
    const r = stopped(t);
    r.tool({ name: 'send_order', callId: 'c1', startMs: 80, endMs: 150, result: 'cancelled', effect: 'irreversible' });
    const lost = t.newSpanId(); // afterstop's request span, never exported
    const commit = r.commit({ callId: 'c1', atMs: 150, evidence: 'request_sent', unansweredMs: 60, requestSpanId: lost });
    const svc = service(r);
    const entry = svc.entry(lost, 95, 400);
    svc.work(entry, 200, 250, { failed: true });
    const a = await analyzeTraces(t);
    const verdicts = await verdictsOf(a);
    const roles = (await a.table('report_spans', "WHERE role = 'service'")).map((x) => [x['run_id'], x['tool_call_id']]);
    const errors = await a.table('error_span_facts');
    a.close();
    expect(verdicts.find((v) => v.span_id === commit)).toMatchObject({ verdict: 'none', witness: 'service', witness_verdict: 'failed', ruled_out: true });
    expect(roles).toEqual([
      [null, 'c1'],
      [null, 'c1'],
    ]);
    expect(errors).toEqual([]);
  });

  it("a request span the store lacks, the service's work after Stop by its own clock: no pair bounds that clock, so its time decides nothing (possible, never known)", async () => {
    const t = traces();
    const r = stopped(t);
    r.tool({ name: 'send_order', callId: 'c2', startMs: 80, endMs: 150, result: 'cancelled', effect: 'irreversible' });
    const lost = t.newSpanId();
    const commit = r.commit({ callId: 'c2', atMs: 150, evidence: 'request_sent', unansweredMs: 60, requestSpanId: lost });
    const svc = service(r);
    svc.work(svc.entry(lost, 95, 400), 300, 350);
    const a = await analyzeTraces(t);
    const verdicts = await verdictsOf(a);
    a.close();
    expect(verdicts.find((v) => v.span_id === commit)).toMatchObject({ verdict: 'possible', witness: 'service', witness_verdict: 'happened' });
  });

  it("a service's spans are not the run's work: every figure of the run is what it is without them", async () => {
    const build = (withService: boolean): Traces => {
      const t = traces();
      const r = stopped(t);
      const c = cutRequest(r, 'c1');
      if (withService) {
        const svc = service(r);
        const entry = svc.entry(c.request, 95, 600);
        svc.work(entry, 200, 250, { failed: true });
        // The service is itself a model's caller and errs after Stop: none of it is the run's.
        r.serviceSpan({ name: 'chat gpt-4o', parent: entry, kind: 3, startMs: 300, endMs: 500, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 100 } });
        r.serviceSpan({ name: 'execute_tool lookup', parent: entry, startMs: 510, endMs: 590, status: 'error', attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } });
      }
      return t;
    };
    const figures = async (t: Traces) => {
      const a = await analyzeTraces(t);
      const out = {
        runs: await a.table('report_runs'),
        depth: await a.table('report_cancel_depth'),
        latency: await a.table('report_cancel_latency'),
        tools: await a.table('tool_call_facts'),
        models: await a.table('model_call_facts'),
        errors: await a.table('error_span_facts'),
        roles: (await a.table('report_spans', "WHERE role = 'service'")).map((s) => [s['run_id'], s['tool_call_id']]),
      };
      a.close();
      return out;
    };
    const [without, withIt] = [await figures(build(false)), await figures(build(true))];
    const { roles, ...rest } = withIt;
    expect(roles).toEqual([
      [null, 'c1'],
      [null, 'c1'],
      [null, 'c1'],
      [null, 'c1'],
    ]);
    const { roles: none, ...restWithout } = without;
    expect(none).toEqual([]);
    expect(rest).toEqual(restWithout);
  });

  it("a service reached from a framework's own run under afterstop's (Strands' spans beside an afterstop run, a mirror): its spans are the service's all the same, and its work confirms the ghost", async () => {
    const t = traces();
    const r = stopped(t);
    const [mirror, tool, request] = [t.newSpanId(), t.newSpanId(), t.newSpanId()];
    const foreign = (spanId: string, parent: string, name: string, kind: number, startMs: number, endMs: number, attrs: [string, string][], scope: string): void =>
      t.add(undefined, { traceId: r.traceId, spanId, parentSpanId: parent, name, kind, startNs: ns(startMs), endNs: ns(endMs), attrs, scope });
    foreign(
      mirror,
      r.spanId,
      'invoke_agent Strands Agent',
      1,
      10,
      800,
      [
        ['gen_ai.operation.name', 'invoke_agent'],
        ['gen_ai.agent.name', 'Strands Agent'],
      ],
      'strands-agents',
    );
    foreign(
      tool,
      mirror,
      'execute_tool send_email',
      1,
      50,
      150,
      [
        ['gen_ai.operation.name', 'execute_tool'],
        ['gen_ai.tool.name', 'send_email'],
        ['gen_ai.tool.call.id', 'm1'],
      ],
      'strands-agents',
    );
    // afterstop's request span under the foreign tool: no afterstop.run.id on it, as the instrumentation writes it.
    foreign(
      request,
      tool,
      'POST',
      3,
      60,
      150,
      [
        ['http.request.method', 'POST'],
        ['afterstop.request.trace_context', 'injected'],
      ],
      'afterstop',
    );
    r.commit({ callId: 'm1', tool: 'send_email', atMs: 150, evidence: 'request_sent', unansweredMs: 85, requestSpanId: request, attrs: [['afterstop.tool.foreign', 'true']] });
    const entry = r.serviceSpan({ name: 'POST /send', kind: 2, parent: request, startMs: 5070, endMs: 5150, service: 'mail-api' });
    r.serviceSpan({ name: 'INSERT outbox', kind: 3, parent: entry, startMs: 5400, endMs: 5420, service: 'mail-api', attrs: { 'db.system.name': 'sqlite' } });
    const a = await analyzeTraces(t);
    const roles = (await a.table('report_spans', "WHERE name IN ('POST /send', 'INSERT outbox') ORDER BY name")).map((x) => [x['name'], x['role'], x['run_id']]);
    const total = await a.total('ghost-commits');
    a.close();
    expect(roles).toEqual([
      ['INSERT outbox', 'service', null],
      ['POST /send', 'service', null],
    ]);
    expect(total).toMatchObject({ ghost_commits: 1, ghost_commits_possible: 0, ghost_commits_confirmed: 1 });
  });
});
