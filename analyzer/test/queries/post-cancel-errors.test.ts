import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** post-cancel-errors.sql: next-run errors by cause and cleanup errors, per group of the cancelled run, METRICS.md §5. */
const pick = (r: Record<string, unknown>) => [r['service'], r['total'], r['orphan_tool_call_rejected'], r['other'], r['cleanup_errors']];
const pair = (t: Traces, service: string, conversation: string, message: string, startMs = 0) => {
  const r = t.run({ service, conversation, startMs, endMs: startMs + 900, outcome: 'cancelled' });
  r.cancelRequest(startMs + 100);
  const n = t.run({ service: 'next', conversation, startMs: startMs + 1000, endMs: startMs + 1900, outcome: 'failed' });
  n.model({ startMs: startMs + 1000, endMs: startMs + 1100, model: 'gpt-4o', status: { code: 'error', message }, attrs: { 'error.type': '400' } });
  n.span({ name: 'agent.step', startMs: startMs + 1000, endMs: startMs + 1200, status: { code: 'error', message }, attrs: { 'error.type': '400' } });
  return r;
};

describe('post-cancel-errors', () => {
  it('per group of the cancelled run; one per next run despite several ERROR spans; cleanup errors apart', async () => {
    const t = traces();
    pair(t, 'a', 'c1', '400 No tool output found for function call call_1.');
    pair(t, 'a', 'c2', '500 internal error');
    const r = pair(t, 'b', 'c3', 'Tool result is missing for tool call call_9.');
    r.tool({ name: 'x', callId: 'k', startMs: 50, endMs: 300, status: { code: 'error', message: 'ECONNRESET' }, errorType: 'Error' });
    r.tool({ name: 'y', callId: 'l', startMs: 50, endMs: 300, status: { code: 'error', message: 'cancelled' }, errorType: 'cancelled' });
    const s = await analyzeTraces(t);
    const rows = await s.rows('post-cancel-errors');
    s.close();
    expect(rows.map(pick)).toEqual([
      ['a', false, 1, 1, 0],
      ['b', false, 1, 0, 1],
      ['next', false, 0, 0, 0],
      [null, true, 2, 1, 1],
    ]);
  });

  it('the next run may lie outside the window; a cancelled run outside it is not counted', async () => {
    const t = traces();
    pair(t, 'a', 'c1', 'No tool output found for function call x', 0); // cancelled run in the window, next run after it
    pair(t, 'a', 'c2', 'No tool output found for function call x', -5000); // cancelled run before the window
    const s = await analyzeTraces(t, { sinceMs: -1000, untilMs: 500 });
    expect(pick(await s.total('post-cancel-errors'))).toEqual([null, true, 1, 0, 0]);
    s.close();
  });
});
