import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

describe('model call', () => {
  it('is a GenAI inference span with provider usage and time to first chunk', async () => {
    const run = startRun({ conversationId: 'conv-m' });
    const call = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    await sleep(20);
    call.chunk(2);
    call.chunk();
    call.usage({ inputTokens: 120 });
    call.usage({ outputTokens: 3 });
    call.end({ finishReasons: ['stop'], responseModel: 'gpt-4o-2024-08-06' });
    run.end();
    const spans = await capture.spans(run.id);
    const span = only(spans, 'chat gpt-4o');
    expect(span.kind).toBe(3); // CLIENT
    expect(span.parentSpanId).toBe(only(spans, 'invoke_agent').spanId);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
      'afterstop.model.usage_source': 'provider',
      'afterstop.model.aborted': false,
      'gen_ai.conversation.id': 'conv-m',
    });
    const ttfc = span.attributes['gen_ai.response.time_to_first_chunk'] as number;
    expect(ttfc).toBeGreaterThanOrEqual(0.015);
    expect(ttfc).toBeLessThan(Number(span.endNs - span.startNs) / 1e9 + 1e-6);
    expect(span.attributes['afterstop.model.output_tokens_streamed']).toBeUndefined();
    expect(span.attributes['afterstop.model.output_tokens_after_cancel']).toBeUndefined();
  });

  it('counts the tokens that arrive after the cancel request, and estimates without usage', async () => {
    const run = startRun({});
    const call = run.startModelCall({ provider: 'anthropic', model: 'claude-sonnet-4', operation: 'chat' });
    call.chunk(5);
    call.chunk(5);
    await run.cancel();
    call.chunk(3);
    call.chunk(4);
    call.end();
    run.end();
    const span = only(await capture.spans(run.id), 'chat claude-sonnet-4');
    expect(span.attributes).toMatchObject({
      'afterstop.model.output_tokens_streamed': 17,
      'afterstop.model.output_tokens_after_cancel': 7,
      'afterstop.model.usage_source': 'estimated',
      'afterstop.model.aborted': true,
    });
    expect(span.attributes['gen_ai.usage.output_tokens']).toBeUndefined();
    expect(span.statusCode).toBe(0);
  });

  it('counts every token of a call that started after the cancel', async () => {
    const run = startRun({});
    await run.cancel();
    const call = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    call.chunk(4);
    call.usage({ inputTokens: 10, outputTokens: 4 });
    call.end({ finishReasons: ['stop'] });
    run.end();
    const span = only(await capture.spans(run.id), 'chat gpt-4o');
    expect(span.attributes['afterstop.model.output_tokens_after_cancel']).toBe(4);
    expect(span.attributes['afterstop.model.aborted']).toBe(false);
  });

  it('treats an abort error as aborted, not as a failure, and other errors as failures', async () => {
    const run = startRun({});
    const aborted = run.startModelCall({ provider: 'openai', model: 'a' });
    const abort = new Error('Request was aborted.');
    abort.name = 'AbortError';
    aborted.end({ error: abort });
    const rejected = run.startModelCall({ provider: 'openai', model: 'b' });
    rejected.end({ error: Object.assign(new Error('400 No tool output found for function call call_1.'), { status: 400 }) });
    run.end();
    const spans = await capture.spans(run.id);
    const a = only(spans, 'chat a');
    expect(a.statusCode).toBe(0);
    expect(a.attributes['afterstop.model.aborted']).toBe(true);
    expect(a.attributes['afterstop.model.usage_source']).toBe('none');
    const b = only(spans, 'chat b');
    expect(b.statusCode).toBe(2);
    expect(b.statusMessage).toBe('400 No tool output found for function call call_1.');
    expect(b.attributes['error.type']).toBe('400');
  });

  it('ends once and ignores chunks after its end', async () => {
    const run = startRun({});
    const call = run.startModelCall({ provider: 'openai', model: 'once' });
    call.chunk(1);
    call.end();
    call.chunk(100);
    call.usage({ outputTokens: 100 });
    call.end({ finishReasons: ['stop'] });
    run.end();
    const spans = named(await capture.spans(run.id), 'chat once');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['afterstop.model.output_tokens_streamed']).toBe(1);
  });

  it('ignores token counts that are not counts', async () => {
    const run = startRun({});
    const call = run.startModelCall({ provider: 'openai', model: 'odd' });
    call.chunk(Number.NaN);
    call.chunk(-3);
    call.chunk(2.7);
    call.usage({ inputTokens: Number.POSITIVE_INFINITY, outputTokens: 2 });
    call.end();
    run.end();
    const span = only(await capture.spans(run.id), 'chat odd');
    expect(span.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(span.attributes['gen_ai.usage.output_tokens']).toBe(2);
  });
});
