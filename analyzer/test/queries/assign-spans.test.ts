import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** assign-spans.sql: the spans assign-runs.sql reads, of the traces holding a span that does not name its run, each with its own role. */
describe('assign-spans', () => {
  it('holds every span of a trace with a span not naming its run, with what each tells alone; nothing of a trace whose spans all name theirs', async () => {
    const t = traces();
    // afterstop's own run: every span but the run span names its run (afterstop.run.id), and the run span is a root.
    const named = t.run({ startMs: 0, endMs: 900 });
    named.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 400 });
    // A foreign trace: no span names its run.
    const foreign = t.run({ name: 'ai.streamText', stamp: false, startMs: 1000, endMs: 1900, attrs: { 'ai.operationId': 'ai.streamText' } });
    const call = foreign.span({ name: 'ai.toolCall', startMs: 1010, endMs: 1020 });
    const a = await analyzeTraces(t);
    const rows = await a.table('assign_spans', 'ORDER BY start_ns');
    a.close();
    expect(rows.map((r) => [r['trace_id'], r['span_id'], r['is_run_span'], r['own_role']])).toEqual([
      [foreign.traceId, foreign.spanId, false, 'other'],
      [foreign.traceId, call, false, 'tool'],
    ]);
    expect(rows.every((r) => r['trace_id'] !== named.traceId)).toBe(true);
  });
});
