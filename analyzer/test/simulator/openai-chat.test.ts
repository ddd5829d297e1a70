import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import type { Simulator } from '../../simulator/index.js';
import { ignoreAbort, parseSse, postJson, readSseUntil } from './helpers.js';

type Chunk = {
  id: string;
  object: string;
  choices: Array<{
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; type?: string; function: { name?: string; arguments?: string } }>;
    };
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
};

let sim: Simulator;
let endpoint: string;
beforeEach(async () => {
  sim = await startSimulator({ tokenDelayMs: 5 });
  endpoint = `${sim.url}/v1/chat/completions`;
});
afterEach(async () => {
  await sim.close();
});

async function streamChunks(body: Record<string, unknown>): Promise<{ chunks: Chunk[]; raw: string[] }> {
  const res = await postJson(endpoint, { model: 'gpt-sim', stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = parseSse(await res.text());
  const raw = events.map((e) => e.data);
  return { chunks: raw.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Chunk), raw };
}

describe('openai chat completions', () => {
  it('answers a non-stream request with a chat.completion and usage', async () => {
    const content = 'hello there [[tokens:3]]'; // 24 chars -> 6 input tokens
    const res = await postJson(endpoint, { model: 'gpt-sim', messages: [{ role: 'user', content }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('gpt-sim');
    expect(body.choices[0].message).toMatchObject({ role: 'assistant', content: 'tok1 tok2 tok3 ' });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage).toEqual({ prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ api: 'openai-chat', stream: false, inputTokens: 6, outputTokensGenerated: 3, outputTokensSent: 3, clientClosedEarly: false, status: 200 });
  });

  it('streams chat.completion.chunk lines, one per token, ending with [DONE] and no usage by default', async () => {
    const { chunks, raw } = await streamChunks({ messages: [{ role: 'user', content: 'hi [[tokens:4]]' }] });
    expect(raw.at(-1)).toBe('[DONE]');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('tok1 tok2 tok3 tok4 ');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(4);
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
  });

  it('adds a usage chunk with empty choices when stream_options.include_usage is set', async () => {
    const { chunks } = await streamChunks({
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'abcdefgh [[tokens:5]]' }],
    });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 6, completion_tokens: 5, total_tokens: 11 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('streams scripted tool calls whose deltas reassemble to the scripted calls', async () => {
    const args = '{"to":"ops@example.com","body":"a ]] b","n":[1,[2]]}';
    const { chunks } = await streamChunks({
      messages: [{ role: 'user', content: `deploy [[tool:send_email ${args}]] then [[tool:noop]]` }],
    });
    const calls: Array<{ id: string; type: string; name: string; arguments: string }> = [];
    for (const c of chunks) {
      for (const d of c.choices[0]?.delta.tool_calls ?? []) {
        if (d.id) calls[d.index] = { id: d.id, type: d.type ?? '', name: d.function.name ?? '', arguments: d.function.arguments ?? '' };
        else calls[d.index]!.arguments += d.function.arguments ?? '';
      }
    }
    expect(calls).toEqual([
      { id: 'call_1', type: 'function', name: 'send_email', arguments: args },
      { id: 'call_2', type: 'function', name: 'noop', arguments: '{}' },
    ]);
    expect(chunks.some((c) => c.choices[0]?.delta.content)).toBe(false);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(sim.ledger.modelRequests[0]!.toolCalls).toEqual([
      { id: 'call_1', name: 'send_email' },
      { id: 'call_2', name: 'noop' },
    ]);
  });

  it('answers with text when the last message is a tool result', async () => {
    const res = await postJson(endpoint, {
      model: 'gpt-sim',
      messages: [
        { role: 'user', content: '[[tool:lookup {"q":1}]] [[tokens:2]]' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }] },
        { role: 'tool', tool_call_id: 'call_9', content: 'result' },
      ],
    });
    const body = (await res.json()) as Record<string, any>;
    expect(body.choices[0].message.content).toBe('tok1 tok2 ');
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('rejects an assistant tool call without a tool response with the real 400 body', async () => {
    const res = await postJson(endpoint, {
      model: 'gpt-sim',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'a', arguments: '{}' } }] },
        { role: 'user', content: 'stop' },
      ],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
        type: 'invalid_request_error',
        param: 'messages',
        code: null,
      },
    });
    expect(sim.ledger.modelRequests[0]).toMatchObject({ status: 400, outputTokensGenerated: 0, inputTokens: 0 });
  });

  it('rejects a malformed JSON body with 400 JSON', async () => {
    const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string } };
    expect(body.error.type).toBe('invalid_request_error');
  });

  it('caps text at max_tokens with finish_reason length', async () => {
    const res = await postJson(endpoint, { model: 'gpt-sim', max_tokens: 2, messages: [{ role: 'user', content: '[[tokens:9]]' }] });
    const body = (await res.json()) as Record<string, any>;
    expect(body.choices[0].message.content).toBe('tok1 tok2 ');
    expect(body.choices[0].finish_reason).toBe('length');
  });

  it('records a client abort mid-stream: generation stops after the current token', async () => {
    const requested = 200;
    const controller = new AbortController();
    const res = await postJson(endpoint, { model: 'gpt-sim', stream: true, messages: [{ role: 'user', content: `[[tokens:${requested}]]` }] }, { signal: controller.signal });
    let received = 0;
    await ignoreAbort(
      readSseUntil(res, (e) => {
        if (e.data.includes('"content":"tok')) received++;
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
    // When each token went out: one time per token sent, in order, within the request.
    expect(rec!.outputTokensSentNs).toHaveLength(rec!.outputTokensSent);
    expect(rec!.outputTokensSentNs.every((t, i, all) => t >= rec!.startNs && t <= rec!.endNs && (i === 0 || t >= all[i - 1]!))).toBe(true);
    expect(rec!.outputTokensGenerated - rec!.outputTokensSent).toBeLessThanOrEqual(1);
    expect(rec!.endNs).toBeGreaterThan(rec!.startNs);
  });

  it('records a client abort of a non-stream request as generated but never sent', async () => {
    const controller = new AbortController();
    const pending = postJson(endpoint, { model: 'gpt-sim', messages: [{ role: 'user', content: '[[tokens:100]]' }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 60);
    await ignoreAbort(pending);
    await sim.idle();
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ clientClosedEarly: true, outputTokensSent: 0, stream: false });
    expect(rec!.outputTokensGenerated).toBeGreaterThan(0);
    expect(rec!.outputTokensGenerated).toBeLessThan(100);
  });

  it('paces tokens with the [[delay:MS]] directive', async () => {
    const started = performance.now();
    const { chunks } = await streamChunks({ messages: [{ role: 'user', content: '[[tokens:4]] [[delay:40]]' }] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(4);
    const [rec] = sim.ledger.modelRequests;
    expect(rec!.endNs - rec!.startNs).toBeGreaterThanOrEqual(150_000_000n);
  });
});
