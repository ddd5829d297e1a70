import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import type { Simulator } from '../../simulator/index.js';
import { ignoreAbort, parseSse, postJson, readSseUntil } from './helpers.js';

type Event = Record<string, any> & { type: string; sequence_number: number };

let sim: Simulator;
let endpoint: string;
beforeEach(async () => {
  sim = await startSimulator({ tokenDelayMs: 5 });
  endpoint = `${sim.url}/v1/responses`;
});
afterEach(async () => {
  await sim.close();
});

async function streamEvents(body: Record<string, unknown>): Promise<Event[]> {
  const res = await postJson(endpoint, { model: 'gpt-sim', stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = parseSse(await res.text());
  for (const e of events) expect(e.event).toBe((JSON.parse(e.data) as Event).type); // `event:` line = data.type
  return events.map((e) => JSON.parse(e.data) as Event);
}

async function post(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await postJson(endpoint, { model: 'gpt-sim', ...body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

describe('openai responses', () => {
  it('answers a non-stream request with a response object and usage', async () => {
    const { status, body } = await post({ input: 'hello there [[tokens:3]]' }); // 24 chars -> 6 input tokens
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-sim', error: null, incomplete_details: null });
    expect(body.id).toMatch(/^resp_/);
    expect(body.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'tok1 tok2 tok3 ', annotations: [], logprobs: [] }],
      },
    ]);
    expect(body.usage).toEqual(usage(6, 3));
    expect(sim.ledger.modelRequests[0]).toMatchObject({
      id: body.id,
      api: 'openai-responses',
      stream: false,
      inputTokens: 6,
      outputTokensGenerated: 3,
      outputTokensSent: 3,
      outputTokensSentNs: [],
      clientClosedEarly: false,
      status: 200,
    });
  });

  it('streams the lifecycle events in order, one output_text.delta per token, numbered from 0', async () => {
    const events = await streamEvents({ input: 'hi [[tokens:3]]' });
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const created = events[0]!.response;
    expect(created).toMatchObject({ object: 'response', status: 'in_progress', output: [], usage: null });
    const item = events[2]!.item;
    expect(item).toEqual({ id: expect.stringMatching(/^msg_/), type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((d) => d.delta)).toEqual(['tok1 ', 'tok2 ', 'tok3 ']);
    expect(deltas.every((d) => d.item_id === item.id && d.output_index === 0 && d.content_index === 0)).toBe(true);
    expect(events[7]).toMatchObject({ item_id: item.id, text: 'tok1 tok2 tok3 ' });
    expect(events[9]!.item).toMatchObject({ id: item.id, status: 'completed', content: [{ type: 'output_text', text: 'tok1 tok2 tok3 ' }] });
    const done = events.at(-1)!.response;
    expect(done).toMatchObject({ id: created.id, status: 'completed', output: [events[9]!.item] });
    expect(done.usage).toEqual(usage(4, 3));
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ stream: true, outputTokensGenerated: 3, outputTokensSent: 3, clientClosedEarly: false });
    expect(rec!.outputTokensSentNs).toHaveLength(3);
  });

  it('scripts from the last user message of an input array; instructions and every item count as input', async () => {
    const input = [
      { role: 'system', content: 'be brief [[tokens:9]]' },
      { role: 'user', content: [{ type: 'input_text', text: 'first [[tokens:7]]' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'again' },
          { type: 'input_text', text: '[[tokens:2]]' },
        ],
      },
    ];
    const { body } = await post({ instructions: 'four', input });
    expect(body.output[0].content[0].text).toBe('tok1 tok2 ');
    const chars = 4 + 'be brief [[tokens:9]]'.length + 'first [[tokens:7]]'.length + 2 + 'again\n[[tokens:2]]'.length;
    expect(body.usage.input_tokens).toBe(Math.ceil(chars / 4));
    expect(body.instructions).toBe('four');
  });

  it('streams scripted function calls whose argument deltas reassemble to the scripted calls', async () => {
    const args = '{"to":"ops@example.com","body":"a ]] b","n":[1,[2]]}';
    const tools = [{ type: 'function', name: 'send_email', parameters: { type: 'object' } }];
    const events = await streamEvents({ tools, input: `deploy [[tool:send_email ${args}]] then [[tool:noop]]` });
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
    expect(added).toEqual([
      { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_1', name: 'send_email' },
      { id: 'fc_2', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_2', name: 'noop' },
    ]);
    const argsOf = (index: number): string =>
      events
        .filter((e) => e.type === 'response.function_call_arguments.delta' && e.output_index === index)
        .map((e) => e.delta as string)
        .join('');
    expect([argsOf(0), argsOf(1)]).toEqual([args, '{}']);
    const argsDone = events.filter((e) => e.type === 'response.function_call_arguments.done');
    expect(argsDone.map((e) => [e.item_id, e.arguments])).toEqual([
      ['fc_1', args],
      ['fc_2', '{}'],
    ]);
    expect(argsDone.every((e) => !('name' in e))).toBe(true); // the live API leaves `name` out
    // each item is finished before the next starts
    expect(events.map((e) => e.type).slice(-5)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const done = events.at(-1)!.response;
    expect(done.output.map((o: any) => [o.type, o.status, o.call_id, o.arguments])).toEqual([
      ['function_call', 'completed', 'call_1', args],
      ['function_call', 'completed', 'call_2', '{}'],
    ]);
    expect(done.tools).toEqual(tools);
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(false);
    expect(sim.ledger.modelRequests[0]!.toolCalls).toEqual([
      { id: 'call_1', name: 'send_email' },
      { id: 'call_2', name: 'noop' },
    ]);
  });

  it('answers function call outputs with text, or with the next [[step]]', async () => {
    const call = { type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{"q":1}' };
    const output = { type: 'function_call_output', call_id: 'call_9', output: 'result' };
    const text = await post({ input: [{ role: 'user', content: '[[tool:lookup {"q":1}]] [[tokens:2]]' }, call, output] });
    expect(text.body.output).toHaveLength(1);
    expect(text.body.output[0].content[0].text).toBe('tok1 tok2 ');
    const stepped = await post({ input: [{ role: 'user', content: '[[tool:lookup]] [[step]] [[tool:send]]' }, call, output] });
    expect(stepped.body.output.map((o: any) => [o.type, o.name])).toEqual([['function_call', 'send']]);
  });

  it('continues a stored response with previous_response_id; store:false keeps nothing', async () => {
    const first = await post({ input: 'mail them [[tool:send_email {"to":"a"}]] [[tokens:2]]' });
    const callId = first.body.output[0].call_id;
    const next = await post({ previous_response_id: first.body.id, input: [{ type: 'function_call_output', call_id: callId, output: 'sent' }] });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ previous_response_id: first.body.id, output: [{ type: 'message', content: [{ text: 'tok1 tok2 ' }] }] });
    expect(next.body.usage.input_tokens).toBeGreaterThan(first.body.usage.input_tokens); // the whole conversation is input
    const unstored = await post({ store: false, input: 'x [[tokens:1]]' });
    const refused = await post({ previous_response_id: unstored.body.id, input: 'y' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      message: `Previous response with id '${unstored.body.id}' not found.`,
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  });

  it('rejects unmatched function calls and outputs with the real 400 bodies', async () => {
    const orphanOutput = await post({
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call_output', call_id: 'call_7', output: 'r' },
      ],
    });
    expect(orphanOutput.status).toBe(400);
    expect(orphanOutput.body).toEqual({
      error: { message: 'No tool call found for function call output with call_id call_7.', type: 'invalid_request_error', param: 'input', code: null },
    });
    const unanswered = await post({
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call', call_id: 'call_8', name: 'a', arguments: '{}' },
        { role: 'user', content: 'stop' },
      ],
    });
    expect(unanswered.body.error).toMatchObject({ message: 'No tool output found for function call call_8.', param: 'input' });
    expect(sim.ledger.modelRequests.map((r) => [r.status, r.api, r.inputTokens, r.outputTokensGenerated])).toEqual([
      [400, 'openai-responses', 0, 0],
      [400, 'openai-responses', 0, 0],
    ]);
  });

  it('rejects a malformed JSON body, a missing model and a too small max_output_tokens', async () => {
    const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const noModel = await postJson(endpoint, { input: 'x' });
    expect(((await noModel.json()) as any).error).toMatchObject({ param: 'model', code: 'missing_required_parameter' });
    const small = await post({ input: 'x', max_output_tokens: 5 });
    expect(small.body.error).toEqual({
      message: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.",
      type: 'invalid_request_error',
      param: 'max_output_tokens',
      code: 'integer_below_min_value',
    });
  });

  it('cuts text at max_output_tokens: status incomplete, and response.incomplete when streamed', async () => {
    const { body } = await post({ max_output_tokens: 16, input: '[[tokens:30]]' });
    expect(body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(body.output[0].status).toBe('incomplete');
    expect(body.usage.output_tokens).toBe(16);
    const events = await streamEvents({ max_output_tokens: 16, input: '[[tokens:30]]' });
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(16);
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete' } });
  });

  it('records a client abort mid-stream: generation stops after the current token', async () => {
    const requested = 200;
    const controller = new AbortController();
    const res = await postJson(endpoint, { model: 'gpt-sim', stream: true, input: `[[tokens:${requested}]]` }, { signal: controller.signal });
    let received = 0;
    await ignoreAbort(
      readSseUntil(res, (e) => {
        if (e.event === 'response.output_text.delta') received++;
        if (received === 5) controller.abort();
        return false;
      }),
    );
    await sim.idle();
    const [rec] = sim.ledger.modelRequests;
    expect(rec!.clientClosedEarly).toBe(true);
    expect(rec!.outputTokensGenerated).toBeLessThan(requested);
    expect(rec!.outputTokensGenerated).toBeGreaterThanOrEqual(rec!.outputTokensSent);
    expect(rec!.outputTokensSent).toBeGreaterThanOrEqual(received);
    expect(rec!.outputTokensSentNs).toHaveLength(rec!.outputTokensSent);
    expect(rec!.outputTokensSentNs.every((t, i, all) => t >= rec!.startNs && t <= rec!.endNs && (i === 0 || t >= all[i - 1]!))).toBe(true);
    expect(rec!.outputTokensGenerated - rec!.outputTokensSent).toBeLessThanOrEqual(1);
  });

  it('records a client abort of a non-stream request as generated but never sent', async () => {
    const controller = new AbortController();
    const pending = postJson(endpoint, { model: 'gpt-sim', input: '[[tokens:100]]' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 60);
    await ignoreAbort(pending);
    await sim.idle();
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ api: 'openai-responses', clientClosedEarly: true, outputTokensSent: 0, stream: false });
    expect(rec!.outputTokensGenerated).toBeGreaterThan(0);
    expect(rec!.outputTokensGenerated).toBeLessThan(100);
  });

  it('answers on /responses too, paced by [[delay:MS]]', async () => {
    const started = performance.now();
    const res = await postJson(`${sim.url}/responses`, { model: 'gpt-sim', stream: true, input: '[[tokens:4]] [[delay:40]]' });
    const events = parseSse(await res.text());
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(events.filter((e) => e.event === 'response.output_text.delta')).toHaveLength(4);
  });

  it('works with the openai package: a streamed function call, continued by previous_response_id', async () => {
    const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'send_email', parameters: { type: 'object', properties: { to: { type: 'string' } } }, strict: false }];
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'mail [[tool:send_email {"to":"a@b.c"}]] [[tokens:3]]', stream: true, tools });
    let call: OpenAI.Responses.ResponseFunctionToolCall | undefined;
    let completed: OpenAI.Responses.Response | undefined;
    let argumentDeltas = '';
    for await (const event of stream) {
      if (event.type === 'response.function_call_arguments.delta') argumentDeltas += event.delta;
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call') call = event.item;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'send_email', arguments: '{"to":"a@b.c"}' });
    expect(argumentDeltas).toBe(call!.arguments);
    expect(completed).toMatchObject({ status: 'completed', output: [call] });
    // The SDK's own accumulator (responses.stream) rebuilds the same answer from the events.
    const next = client.responses.stream({
      model: 'gpt-4o',
      previous_response_id: completed!.id,
      input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'sent' }],
      tools,
    });
    const final = await next.finalResponse();
    expect(final.output_text).toBe('tok1 tok2 tok3 ');
    expect(final.usage).toMatchObject({ output_tokens: 3 });
    const plain = await client.responses.create({ model: 'gpt-4o', input: [{ role: 'user', content: [{ type: 'input_text', text: '[[tokens:2]]' }] }] });
    expect(plain.output_text).toBe('tok1 tok2 ');
    expect(sim.ledger.modelRequests.map((r) => [r.api, r.stream, r.status, r.toolCalls.length])).toEqual([
      ['openai-responses', true, 200, 1],
      ['openai-responses', true, 200, 0],
      ['openai-responses', false, 200, 0],
    ]);
  });

  const aiSdk = () => createOpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'x' });

  it('works with @ai-sdk/openai responses models through streamText: a tool call, its result, the answer', async () => {
    const executed: unknown[] = [];
    const result = streamText({
      model: aiSdk().responses('gpt-4o'),
      prompt: 'E-mail them. [[tool:send_email {"to":"a@b.c"}]] [[tokens:3]]',
      tools: {
        send_email: tool({
          inputSchema: jsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }),
          execute: async (input) => {
            executed.push(input);
            return { ok: true };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    const parts: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw part.error;
      parts.push(part.type);
    }
    expect(executed).toEqual([{ to: 'a@b.c' }]);
    expect(parts).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'text-delta']));
    expect(await result.text).toBe('tok1 tok2 tok3 ');
    const steps = await result.steps;
    expect(steps.map((s) => [s.finishReason, s.usage.outputTokens])).toEqual([
      ['tool-calls', 5],
      ['stop', 3],
    ]);
    expect(sim.ledger.modelRequests.map((r) => [r.api, r.stream, r.status, r.toolCalls])).toEqual([
      ['openai-responses', true, 200, [{ id: 'call_1', name: 'send_email' }]],
      ['openai-responses', true, 200, []],
    ]);
  });

  it('records an @ai-sdk/openai stream aborted mid-stream as closed early', async () => {
    const controller = new AbortController();
    const result = streamText({ model: aiSdk().responses('gpt-4o'), prompt: '[[tokens:200]]', abortSignal: controller.signal });
    let deltas = 0;
    await ignoreAbort(
      (async () => {
        for await (const part of result.fullStream) {
          if (part.type === 'error') throw part.error;
          if (part.type === 'text-delta' && ++deltas === 5) controller.abort();
        }
      })(),
    );
    await sim.idle();
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ api: 'openai-responses', stream: true, clientClosedEarly: true });
    expect(rec!.outputTokensSent).toBeGreaterThanOrEqual(5);
    expect(rec!.outputTokensGenerated).toBeLessThan(200);
    expect(rec!.outputTokensSentNs).toHaveLength(rec!.outputTokensSent);
  });

  it("serves @ai-sdk/openai's default model (Responses) through generateText, the next turn by item_reference", async () => {
    const openai = aiSdk();
    const first = await generateText({ model: openai('gpt-4o'), prompt: 'hello [[tokens:2]]' });
    expect(first.text).toBe('tok1 tok2 ');
    const second = await generateText({
      model: openai('gpt-4o'),
      messages: [{ role: 'user', content: 'hello [[tokens:2]]' }, ...first.response.messages, { role: 'user', content: 'more [[tokens:3]]' }],
    });
    expect(second.text).toBe('tok1 tok2 tok3 ');
    const sentInput = (second.request.body as { input: unknown[] }).input;
    const answered = (first.response.body as { output: Array<{ id: string }> }).output[0]!.id;
    expect(sentInput).toContainEqual({ type: 'item_reference', id: answered }); // resolved from what the simulator stored
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens!);
    expect(sim.ledger.modelRequests.map((r) => [r.api, r.stream, r.status])).toEqual([
      ['openai-responses', false, 200],
      ['openai-responses', false, 200],
    ]);
  });
});
