import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** model-call-facts.sql: the model calls of cancelled runs that may have billed tokens after C (the store's model_call_facts). */
describe('model-call-facts', () => {
  it('keeps the calls of a cancelled run that ended after C, with their counts and first chunk; none of a run not cancelled', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 0, endMs: 50, model: 'gpt-4o', input: 10, output: 40 }); // ended before C
    r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40, ttfcMs: 50 });
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-mini', afterCancel: 7 });
    const done = t.run({ startMs: 0, endMs: 2000, outcome: 'completed' });
    done.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40 });
    const a = await analyzeTraces(t);
    const rows = await a.table('model_call_facts', 'ORDER BY start_ns');
    a.close();
    expect(rows.map((m) => [m['run_id'], m['model'], relMs(m['start_ns']), relMs(m['end_ns']), m['input_tokens'], m['output_tokens'], m['output_tokens_after_cancel'], relMs(m['f_ns']), m['cut_step']])).toEqual([
      [r.spanId, 'gpt-4o', 0, 500, 10, 40, null, 50, false],
      [r.spanId, 'gpt-4o-mini', 200, 300, null, null, 7, 200, false],
    ]);
  });

  it('an inferred cancel: the aborted call that started before C is kept; a run stopped in its first step, with no model span, is one cut step', async () => {
    const t = traces();
    const aborted = t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 400 });
    aborted.model({ startMs: 0, endMs: 300, model: 'gpt-4o', status: 'error', exceptions: [{ type: 'AbortError', message: 'This operation was aborted' }] });
    // The AI SDK's onAbort ends the root with no status, usage or finish reason, and never exports the step in flight.
    const cut = t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 400, attrs: { 'ai.model.id': 'gpt-4o-mini' } });
    // A root that finished (its usage) is no cut.
    t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 400, attrs: { 'ai.model.id': 'gpt-4o', 'ai.usage.promptTokens': 5, 'ai.usage.completionTokens': 5, 'ai.response.finishReason': 'stop' } });
    const a = await analyzeTraces(t);
    const rows = await a.table('model_call_facts', 'ORDER BY cut_step');
    a.close();
    expect(rows.map((m) => [m['run_id'], m['model'], m['span_id'] === null, m['cut_step']])).toEqual([
      [aborted.spanId, 'gpt-4o', false, false],
      [cut.spanId, 'gpt-4o-mini', true, true],
    ]);
  });

  it('goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r1.cancelRequest(100);
    r1.model({ startMs: 0, endMs: 500, model: 'm1', output: 4 });
    const r2 = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    r2.cancelRequest(1100);
    r2.model({ startMs: 1000, endMs: 1500, model: 'm2', output: 4 });
    const a = await analyzeTraces(t);
    expect((await a.table('model_call_facts', 'ORDER BY model')).map((m) => m['model'])).toEqual(['m1', 'm2']);
    await a.forgetRun(r1);
    expect((await a.table('model_call_facts')).map((m) => m['model'])).toEqual(['m2']);
    a.close();
  });
});
