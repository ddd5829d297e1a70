import { listValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { timelineItems } from '../../run-timeline.js';
import type { ServiceSpanInput } from '../../service-spans.js';
import type { RunTimelineRow } from '../../sql/query-rows.js';
import { analyzeTraces, BASE_NS, ns, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** run-timeline.sql: a run's model calls, tool calls and markers in time order, each with what the report concluded of it. */
describe('run-timeline', () => {
  it('each span once, in time order, with its ghost, its tokens after Stop and its fate in the conversation', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.model({ startMs: 10, endMs: 300, model: 'gpt-4o', input: 100, output: 50, afterCancel: 20 });
    r.cancelRequest(100);
    r.ack(150);
    r.tool({ name: 'send_email', callId: 'm', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
    r.commit({ callId: 'm', atMs: 300 });
    r.tool({ name: 'book', callId: 'b', startMs: 60, effect: 'reversible' }); // never ended: a possible ghost, drawn from its start marker
    r.tool({ name: 'notify', callId: 'n', startMs: 70, endMs: 110 });
    r.commit({ callId: 'n', atMs: 105, evidence: 'request_sent', unansweredMs: 40 });
    r.repair(500, ['m']);
    const other = t.run({ startMs: 0, endMs: 10 });
    other.model({ startMs: 1, endMs: 2, model: 'gpt-4o' });
    const s = await analyzeTraces(t);
    const rows = await s.rows('run-timeline', { runs: listValue([`${r.traceId}:${r.spanId}`]) });
    s.close();
    const seen = rows.map((x) => [relMs(x['start_ns']), x['name'], x['role']]);
    expect(seen).toEqual([
      [10, 'chat gpt-4o', 'model'],
      [50, 'afterstop.tool.start', 'marker'],
      [50, 'execute_tool send_email', 'tool'],
      [60, 'afterstop.tool.start', 'marker'],
      [70, 'afterstop.tool.start', 'marker'],
      [70, 'execute_tool notify', 'tool'],
      [100, 'afterstop.cancel.request', 'marker'],
      [105, 'afterstop.tool.commit', 'marker'],
      [150, 'afterstop.cancel.ack', 'marker'],
      [300, 'afterstop.tool.commit', 'marker'],
      [500, 'afterstop.history.repair', 'marker'],
    ]);
    const by = (name: string, at: number) => rows.find((x) => x['name'] === name && relMs(x['start_ns']) === at)!;
    expect(by('chat gpt-4o', 10)).toMatchObject({ model: 'gpt-4o', tokens_how: 'observed', output_after: 20, input_after: 0, priced: true });
    expect(by('execute_tool send_email', 50)).toMatchObject({ tool: 'send_email', call_id: 'm', effect: 'irreversible', result: 'late', lost: true, repaired: true, late: true, ghost: null });
    expect(by('afterstop.tool.commit', 300)).toMatchObject({ ghost: 'known', compensated: false, call_id: 'm' });
    expect(by('afterstop.tool.commit', 105)).toMatchObject({ ghost: 'possible', evidence: 'request_sent' });
    expect(relMs(by('afterstop.tool.commit', 105)['sent_ns'])).toBe(65);
    expect(by('afterstop.tool.start', 60)).toMatchObject({ ghost: 'possible', lost: true, call_id: 'b' });
    expect(by('execute_tool notify', 70)).toMatchObject({ lost: false, ghost: null });
  });

  it("the far side's witness (issue 49): a commit's witness and interval, and the service's spans under the call they served, in the service's clock with its bound", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'send_order', callId: 'c1', startMs: 80, endMs: 150, result: 'cancelled', effect: 'irreversible' });
    const request = r.request({ callId: 'c1', startMs: 80, endMs: 150 });
    r.commit({ callId: 'c1', atMs: 150, evidence: 'request_sent', unansweredMs: 60, requestSpanId: request });
    // The service's clock is 5 s ahead: its spans say 5095 ms and 5200 ms.
    const entry = r.serviceSpan({ name: 'POST /orders', parent: request, kind: 2, startMs: 5095, endMs: 5400 });
    r.serviceSpan({ name: 'INSERT orders', parent: entry, kind: 3, startMs: 5200, endMs: 5250, attrs: { 'db.system.name': 'postgresql' } });
    const s = await analyzeTraces(t);
    const rows = (await s.store.typedRows('run-timeline', { runs: listValue([`${r.traceId}:${r.spanId}`]) })) as RunTimelineRow[];
    const services = await s.rows('run-service-spans', { runs: listValue([`${r.traceId}:${r.spanId}`]) });
    s.close();
    const commit = rows.find((x) => x.name === 'afterstop.tool.commit')!;
    // δ ≤ 5095 − 80 = 5015 ms, no answered pair: the write is no earlier than 5200 − 5015 = 185 ms.
    expect([commit.ghost, commit.witness, commit.witness_verdict, relMs(commit.earliest_ns), commit.latest_ns, commit.delta_min_ns, commit.delta_max_ns]).toEqual([
      'known',
      'service',
      'happened',
      185,
      null,
      null,
      5015_000_000n,
    ]);
    // The run's own rows hold no service span: those are run-service-spans.sql's, under the call they served.
    expect(rows.some((x) => x.name === 'POST /orders' || x.name === 'INSERT orders')).toBe(false);
    expect(services.map((x) => [x['name'], x['call_id'], x['service'], x['process'], x['work'], x['delta_max_ns']])).toEqual([
      ['POST /orders', 'c1', 'orders-api', 'orders-api-1', false, 5_015_000_000],
      ['INSERT orders', 'c1', 'orders-api', 'orders-api-1', true, 5_015_000_000],
    ]);
    const items = timelineItems(rows, ns(100), ns(100), services as unknown as ServiceSpanInput[]);
    expect(items.find((i) => i.kind === 'commit')).toMatchObject({ witness: 'service', witness_verdict: 'happened', earliest_ms: 85, latest_ms: null, clock_bound_ms: { min: null, max: 5015 } });
    expect(BASE_NS).toBeTypeOf('bigint');
  });

  it('a foreign tool that ended after Stop is an inferred ghost on its own span', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', framework: 'vercel-ai' });
    r.cancelRequest(100);
    r.tool({ name: 'charge', callId: 'c', startMs: 50, endMs: 400, startMarker: false });
    const s = await analyzeTraces(t);
    const rows = await s.rows('run-timeline', { runs: listValue([`${r.traceId}:${r.spanId}`]) });
    s.close();
    expect(rows.map((x) => [x['name'], x['scope'], x['ghost']])).toEqual([
      ['execute_tool charge', 'foreign', 'inferred'],
      ['afterstop.cancel.request', 'afterstop', null],
    ]);
  });

  it('one item per tool call: the AI SDK’s own ai.toolCall span beside afterstop’s is not a second call', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', framework: 'vercel-ai' });
    r.cancelRequest(100);
    const own = r.tool({ name: 'send_email', callId: 'call_1', startMs: 50, endMs: 400, effect: 'irreversible', result: 'dropped' });
    r.span({ name: 'ai.toolCall', startMs: 49, endMs: 401, scope: 'ai', attrs: { 'ai.toolCall.name': 'send_email', 'ai.toolCall.id': 'call_1', 'ai.operationId': 'ai.toolCall' } });
    // Another call of the same tool, its own id: a lane of its own.
    r.tool({ name: 'send_email', callId: 'call_2', startMs: 60, endMs: 90, effect: 'irreversible' });
    const s = await analyzeTraces(t);
    const rows = (await s.store.typedRows('run-timeline', { runs: listValue([`${r.traceId}:${r.spanId}`]) })) as RunTimelineRow[];
    s.close();
    // Both spans of call_1 are the query's rows; the timeline draws afterstop's.
    expect(rows.filter((x) => x.role === 'tool' && x.call_id === 'call_1')).toHaveLength(2);
    const calls = timelineItems(rows, ns(100), ns(100)).filter((i) => i.kind === 'tool_call');
    expect(calls.map((i) => [i.span_id, i.call_id])).toEqual([
      [own, 'call_1'],
      [expect.any(String), 'call_2'],
    ]);
  });
});
