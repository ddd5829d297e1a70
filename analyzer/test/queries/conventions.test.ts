import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/**
 * Foreign conventions mapped onto the leak model (prepare-spans, prepare-runs,
 * tool-call-facts): OpenInference and OpenLLMetry spans, deprecated GenAI keys.
 */
describe('conventions', () => {
  it('OpenInference: an AGENT root is the run, LLM and TOOL spans are model and tool calls, with their token counts and ids', async () => {
    const t = traces();
    const r = t.run({ name: 'support-agent', stamp: false, startMs: 0, endMs: 900, attrs: { 'openinference.span.kind': 'AGENT', 'session.id': 'sess-1' } });
    r.span({
      name: 'ChatOpenAI',
      startMs: 0,
      endMs: 300,
      attrs: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.token_count.prompt': 50,
        'llm.token_count.completion': 7,
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_9',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
      },
    });
    r.span({ name: 'lookup', startMs: 310, endMs: 400, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup', 'tool_call.id': 'call_9' } });
    const a = await analyzeTraces(t);
    const spans = await a.table('report_spans', "ORDER BY start_ns, role <> 'run'");
    expect(spans.map((s) => [s['role'], s['run_id'], s['framework'], s['conversation_id']])).toEqual([
      ['run', r.spanId, 'openinference', 'sess-1'],
      ['model', r.spanId, 'openinference', null],
      ['tool', r.spanId, 'openinference', null],
    ]);
    expect(spans[1]).toMatchObject({ model: 'gpt-4o', input_tokens: 50, output_tokens: 7 });
    const run = (await a.table('report_runs'))[0]!;
    expect(run).toMatchObject({ framework: 'openinference', conversation_id: 'sess-1', cancelled: false });
    a.close();
    // The same run stopped (a span aborted: a foreign trace's cancel): its tool call, requested in the LLM's output
    // and executed, is one call of the facts kept for cancelled runs.
    r.span({ name: 'stream', startMs: 400, endMs: 450, status: { code: 'error', message: 'AbortError: aborted' } });
    const stopped = await analyzeTraces(t);
    expect((await stopped.table('report_runs'))[0]).toMatchObject({ cancelled: true });
    const calls = await stopped.table('tool_call_facts');
    expect(calls.map((c) => [c['call_id'], c['tool_name'], c['has_span'], c['executed']])).toEqual([['call_9', 'lookup', true, true]]);
    stopped.close();
  });

  it('OpenLLMetry: deprecated GenAI usage keys, traceloop tool spans, tool call ids flattened in the completion', async () => {
    const t = traces();
    const r = t.run({ name: 'agent.workflow', stamp: false, startMs: 0, endMs: 900, attrs: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'agent' } });
    r.span({
      name: 'openai.chat',
      startMs: 0,
      endMs: 300,
      status: { code: 'error', message: 'Request was aborted.' },
      attrs: {
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.prompt_tokens': 40,
        'gen_ai.usage.completion_tokens': 9,
        'gen_ai.completion.0.tool_calls.0.id': 'call_3',
        'gen_ai.completion.0.tool_calls.0.name': 'charge',
      },
    });
    const a = await analyzeTraces(t);
    const model = (await a.table('report_spans', "WHERE role = 'model'"))[0]!;
    expect(model).toMatchObject({ input_tokens: 40, output_tokens: 9, is_cancellation: true });
    // The abort is the evidence of an inferred cancel; the tool the model asked for never ran: an orphan.
    const run = (await a.table('report_runs'))[0]!;
    expect(run).toMatchObject({ cancelled: true, cancel_inferred: true, framework: 'openllmetry' });
    const outcomes = await a.table('report_tool_outcomes');
    expect(outcomes.map((o) => [o['call_id'], o['tool'], o['lost'], o['repaired']])).toEqual([['call_3', 'charge', true, false]]);
    a.close();
  });
});
