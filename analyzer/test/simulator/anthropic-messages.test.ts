import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import type { Simulator } from '../../simulator/index.js';
import { ignoreAbort, parseSse, postJson, readSseUntil } from './helpers.js';

let sim: Simulator;
let endpoint: string;
beforeEach(async () => {
  sim = await startSimulator({ tokenDelayMs: 5 });
  endpoint = `${sim.url}/v1/messages`;
});
afterEach(async () => {
  await sim.close();
});

type Json = Record<string, any>;

async function streamEvents(body: Json): Promise<Array<{ event: string | null; data: Json }>> {
  const res = await postJson(endpoint, { model: 'claude-sim', max_tokens: 1024, stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await res.text()).map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }));
}

describe('anthropic messages', () => {
  it('answers a non-stream request with a message and usage', async () => {
    const res = await postJson(endpoint, {
      model: 'claude-sim',
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello [[tokens:3]]' }] }],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sim',
      content: [{ type: 'text', text: 'tok1 tok2 tok3 ' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 7, output_tokens: 3 }, // 8 + 18 chars -> ceil(26/4)
    });
    expect(sim.ledger.modelRequests[0]).toMatchObject({ api: 'anthropic-messages', inputTokens: 7, outputTokensGenerated: 3, outputTokensSent: 3 });
  });

  it('streams the real event sequence for a text answer', async () => {
    const events = await streamEvents({ messages: [{ role: 'user', content: 'hi [[tokens:3]]' }] });
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message).toMatchObject({ role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 4 } });
    expect(events[2]!.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const text = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text as string);
    expect(text.join('')).toBe('tok1 tok2 tok3 ');
    expect(events[7]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    });
  });

  it('streams tool_use blocks whose input_json_delta fragments reassemble to the scripted input', async () => {
    const events = await streamEvents({
      messages: [{ role: 'user', content: 'go [[tool:charge {"amount":42,"card":"4242"}]] [[tool:notify {"who":["a","b"]}]]' }],
    });
    const blocks: Array<{ id: string; name: string; json: string }> = [];
    const order: string[] = [];
    for (const { event, data } of events) {
      if (event === 'content_block_start') {
        expect(data.index).toBe(blocks.length);
        expect(data.content_block.type).toBe('tool_use');
        blocks.push({ id: data.content_block.id, name: data.content_block.name, json: '' });
      }
      if (event === 'content_block_delta') {
        expect(data.delta.type).toBe('input_json_delta');
        blocks[data.index as number]!.json += data.delta.partial_json as string;
      }
      if (event === 'content_block_start' || event === 'content_block_stop') order.push(`${event}:${data.index}`);
    }
    expect(order).toEqual(['content_block_start:0', 'content_block_stop:0', 'content_block_start:1', 'content_block_stop:1']);
    expect(blocks.map((b) => ({ id: b.id, name: b.name, input: JSON.parse(b.json) }))).toEqual([
      { id: 'toolu_1', name: 'charge', input: { amount: 42, card: '4242' } },
      { id: 'toolu_2', name: 'notify', input: { who: ['a', 'b'] } },
    ]);
    const delta = events.find((e) => e.event === 'message_delta')!.data;
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(delta.usage.output_tokens).toBe(sim.ledger.modelRequests[0]!.outputTokensGenerated);
  });

  it('answers with text after a tool_result, and with the next [[step]] tools when scripted', async () => {
    const history = [
      { role: 'user', content: 'do it [[tool:a]] [[step]] [[tool:b {"x":1}]] [[tokens:2]]' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_7', name: 'a', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_7', content: 'ok' }] },
    ];
    const second = (await (await postJson(endpoint, { model: 'c', max_tokens: 50, messages: history })).json()) as Json;
    expect(second.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'b', input: { x: 1 } }]);
    const third = (await (
      await postJson(endpoint, {
        model: 'c',
        max_tokens: 50,
        messages: [...history, { role: 'assistant', content: second.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] }],
      })
    ).json()) as Json;
    expect(third.content).toEqual([{ type: 'text', text: 'tok1 tok2 ' }]);
    expect(third.stop_reason).toBe('end_turn');
  });

  it('rejects a tool_use without a tool_result in the next message with the real 400 body', async () => {
    const res = await postJson(endpoint, {
      model: 'claude-sim',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'toolu_1', name: 'a', input: {} },
          ],
        },
        { role: 'user', content: 'never mind' },
      ],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      },
    });
    expect(sim.ledger.modelRequests[0]).toMatchObject({ status: 400, api: 'anthropic-messages' });
  });

  it('rejects a missing max_tokens and malformed JSON with 400 errors', async () => {
    const res = await postJson(endpoint, { model: 'c', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toBe('max_tokens: Field required');
    const bad = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).type).toBe('error');
  });

  it('records a client abort mid-stream', async () => {
    const requested = 200;
    const controller = new AbortController();
    const res = await postJson(endpoint, { model: 'claude-sim', max_tokens: 1000, stream: true, messages: [{ role: 'user', content: `[[tokens:${requested}]]` }] }, { signal: controller.signal });
    let received = 0;
    await ignoreAbort(
      readSseUntil(res, (e) => {
        if (e.event === 'content_block_delta') received++;
        if (received === 4) controller.abort();
        return false;
      }),
    );
    await sim.idle();
    const [rec] = sim.ledger.modelRequests;
    expect(rec!.clientClosedEarly).toBe(true);
    expect(rec!.outputTokensGenerated).toBeLessThan(requested);
    expect(rec!.outputTokensGenerated).toBeGreaterThanOrEqual(rec!.outputTokensSent);
    expect(rec!.outputTokensSent).toBeGreaterThanOrEqual(received);
    // When each token went out: one time per token sent, in order, within the request.
    expect(rec!.outputTokensSentNs).toHaveLength(rec!.outputTokensSent);
    expect(rec!.outputTokensSentNs.every((t, i, all) => t >= rec!.startNs && t <= rec!.endNs && (i === 0 || t >= all[i - 1]!))).toBe(true);
  });
});
