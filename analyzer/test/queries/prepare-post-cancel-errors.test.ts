import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Status, type Traces } from '../../../test/helpers/trace-builder.js';

/** prepare-post-cancel-errors.sql: the next run's first error, and cleanup errors (report_post_cancel_errors), METRICS.md §5. */
const cancelled = (t: Traces, conversation: string, o: { endMs?: number; exported?: boolean } = {}) => {
  const r = t.run({ conversation, startMs: 0, endMs: o.endMs ?? 900, outcome: 'cancelled', ...(o.exported === false ? { exported: false } : {}) });
  r.cancelRequest(100);
  return r;
};
const failing = (t: Traces, conversation: string, startMs: number, errors: { endMs: number; status: Status; errorType?: string; exception?: string }[]) => {
  const n = t.run({ conversation, startMs, endMs: startMs + 900, outcome: 'failed' });
  return errors.map((e) =>
    n.model({
      startMs,
      endMs: e.endMs,
      model: 'gpt-4o',
      status: e.status,
      ...(e.errorType ? { attrs: { 'error.type': e.errorType } } : {}),
      ...(e.exception ? { exceptions: [{ type: 'Error', message: e.exception }] } : {}),
    }),
  );
};
const rows = async (t: Traces, where = '') => {
  const a = await analyzeTraces(t);
  const out = await a.table('report_post_cancel_errors', `${where} ORDER BY run_id, kind, span_id`);
  a.close();
  return out;
};

describe('prepare-post-cancel-errors', () => {
  it('classifies each known message of a tool call without a result as orphan_tool_call_rejected, anything else as other', async () => {
    const t = traces();
    const cases: [string, { status: Status; errorType?: string; exception?: string }][] = [
      ['c1', { status: { code: 'error', message: '400 No tool output found for function call call_1.' }, errorType: '400' }],
      ['c2', { status: { code: 'error', message: 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after' }, errorType: '400' }],
      ['c3', { status: 'error', errorType: 'BadRequestError', exception: 'Found unprocessed tool calls' }],
      ['c4', { status: { code: 'error', message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'" }, errorType: '400' }],
      ['c5', { status: { code: 'error', message: 'Tool result is missing for tool call call_1.' }, errorType: 'AI_MissingToolResultsError' }],
      ['c6', { status: { code: 'error', message: 'ToolInvocation must have a result: {"toolCallId":"call_1"}' }, errorType: 'Error' }],
      ['c7', { status: 'error', errorType: 'INVALID_TOOL_RESULTS' }],
      ['c8', { status: { code: 'error', message: '429 Rate limit reached' }, errorType: '429' }],
    ];
    for (const [c, e] of cases) {
      cancelled(t, c);
      failing(t, c, 1000, [{ endMs: 1200, ...e }]);
    }
    const out = await rows(t, "WHERE kind = 'next_run'");
    const a = await analyzeTraces(t);
    const conv = Object.fromEntries((await a.table('report_runs')).map((r) => [r['run_id'], r['conversation_id']]));
    a.close();
    expect(Object.fromEntries(out.map((r) => [conv[r['run_id'] as string], r['cause']]))).toEqual({
      c1: 'orphan_tool_call_rejected',
      c2: 'orphan_tool_call_rejected',
      c3: 'orphan_tool_call_rejected',
      c4: 'orphan_tool_call_rejected',
      c5: 'orphan_tool_call_rejected',
      c6: 'orphan_tool_call_rejected',
      c7: 'orphan_tool_call_rejected',
      c8: 'other',
    });
  });

  it('matches the wording METRICS.md gives: "tool_use ids were found without tool_result"', async () => {
    const t = traces();
    cancelled(t, 'c');
    failing(t, 'c', 1000, [{ endMs: 1200, status: { code: 'error', message: 'tool_use ids were found without tool_result blocks' }, errorType: '400' }]);
    expect((await rows(t)).map((r) => r['cause'])).toEqual(['orphan_tool_call_rejected']);
  });

  it('counts the next run once, its root cause being the ERROR span that ended first', async () => {
    const t = traces();
    const r1 = cancelled(t, 'a');
    const [first] = failing(t, 'a', 1000, [
      { endMs: 1200, status: { code: 'error', message: 'boom' }, errorType: '500' },
      { endMs: 1500, status: { code: 'error', message: 'No tool output found for function call x' }, errorType: '400' },
    ]);
    const r2 = cancelled(t, 'b');
    failing(t, 'b', 1000, [
      { endMs: 1600, status: { code: 'error', message: 'boom' }, errorType: '500' },
      { endMs: 1300, status: { code: 'error', message: 'No tool output found for function call x' }, errorType: '400' },
    ]);
    const out = await rows(t);
    expect(out.map((r) => [r['run_id'], r['kind'], r['cause']]).sort()).toEqual(
      [
        [r1.spanId, 'next_run', 'other'],
        [r2.spanId, 'next_run', 'orphan_tool_call_rejected'],
      ].sort(),
    );
    expect(out.find((r) => r['run_id'] === r1.spanId)!['span_id']).toBe(first);
  });

  it('a cancellation is not an error; an ERROR span without error.type or exception still is', async () => {
    const t = traces();
    cancelled(t, 'a');
    failing(t, 'a', 1000, [
      { endMs: 1200, status: { code: 'error', message: 'cancelled' }, errorType: 'cancelled' },
      { endMs: 1300, status: 'error', exception: 'AbortError: aborted' },
    ]);
    const r = cancelled(t, 'b');
    failing(t, 'b', 1000, [{ endMs: 1200, status: { code: 'error', message: '400 No tool output found for function call call_1.' } }]);
    expect((await rows(t)).map((x) => [x['run_id'], x['cause']])).toEqual([[r.spanId, 'orphan_tool_call_rejected']]);
  });

  it('the next run is the first of the conversation to start after R’s end (after C when R never ended)', async () => {
    const t = traces();
    cancelled(t, 'a');
    failing(t, 'a', 500, [{ endMs: 600, status: 'error', errorType: '500' }]); // overlaps R: not next
    t.run({ conversation: 'a', startMs: 1000, endMs: 1500 }); // next, no error
    failing(t, 'a', 2000, [{ endMs: 2100, status: 'error', errorType: '500' }]);
    failing(t, 'other', 1000, [{ endMs: 1100, status: 'error', errorType: '500' }]);
    const unended = cancelled(t, 'u', { exported: false });
    failing(t, 'u', 200, [{ endMs: 300, status: 'error', errorType: '500' }]);
    expect((await rows(t)).map((x) => x['run_id'])).toEqual([unended.spanId]);
  });

  it('cleanup errors: each ERROR span of R ending after C, except the cancellation', async () => {
    const t = traces();
    const r = cancelled(t, 'a');
    const after = r.tool({ name: 'x', callId: '1', startMs: 50, endMs: 300, status: { code: 'error', message: 'ECONNRESET' }, errorType: 'Error' });
    r.tool({ name: 'x', callId: '2', startMs: 50, endMs: 90, status: 'error', errorType: 'Error' });
    r.tool({ name: 'x', callId: '3', startMs: 50, endMs: 300, status: { code: 'error', message: 'cancelled' }, errorType: 'cancelled' });
    const noType = r.tool({ name: 'x', callId: '4', startMs: 50, endMs: 400, status: { code: 'error', message: 'socket hang up' } });
    expect((await rows(t)).map((x) => [x['kind'], x['span_id']])).toEqual(
      [
        ['cleanup', after],
        ['cleanup', noType],
      ].sort((p, q) => String(p[1]).localeCompare(String(q[1]))),
    );
  });
});
