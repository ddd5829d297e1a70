import { context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flush, startRun } from '../index.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

describe('run.tool', () => {
  it('writes an execute_tool span, and returns the value; a call that ended before the next export needs no start marker', async () => {
    const run = startRun({ agentName: 'support', conversationId: 'conv-t' });
    const value = await run.tool({ name: 'lookup', callId: 'call_1', effect: 'read', idempotencyKey: 'k-1' }, async (ctx) => {
      expect(ctx.callId).toBe('call_1');
      expect(ctx.signal).toBe(run.signal);
      return { order: 42 };
    });
    expect(value).toEqual({ order: 42 });
    run.end();
    const spans = await capture.spans(run.id);
    const runSpan = only(spans, 'invoke_agent support');
    const tool = only(spans, 'execute_tool lookup');
    // Its span tells of its start; the marker is for a call still open when spans are exported.
    expect(named(spans, 'afterstop.tool.start')).toEqual([]);
    expect(tool.parentSpanId).toBe(runSpan.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
      'afterstop.tool.effect': 'read',
      'afterstop.tool.idempotency_key': 'k-1',
      'afterstop.tool.result': 'delivered',
    });
    expect(tool.attributes['afterstop.tool.signal_observed']).toBeUndefined();
    expect(tool.statusCode).toBe(0);
  });

  it('counts on its span the commit markers it wrote before ending (a store holding fewer lost some)', async () => {
    const run = startRun({ agentName: 'support', conversationId: 'conv-count' });
    await run.tool({ name: 'charge', callId: 'call_two', effect: 'irreversible' }, async ({ commit }) => {
      await commit();
      await commit();
    });
    await run.tool({ name: 'lookup', callId: 'call_none', effect: 'read' }, async () => 'ok');
    run.end();
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.tool.commit')).toHaveLength(2);
    expect(only(spans, 'execute_tool charge').attributes['afterstop.tool.commit.count']).toBe(2);
    expect(only(spans, 'execute_tool lookup').attributes['afterstop.tool.commit.count']).toBe(0);
  });

  it("writes the start marker, at the call's start, when the call is still open at an export", async () => {
    const run = startRun({ agentName: 'support', conversationId: 'conv-t' });
    const value = await run.tool({ name: 'slow', callId: 'call_open', effect: 'irreversible', kind: 'step' }, async () => {
      // An export while the body runs: the call may never end, so its start must be on record now.
      await flush(5000);
      await sleep(5);
      return 'done';
    });
    expect(value).toBe('done');
    run.end();
    const spans = await capture.spans(run.id);
    const runSpan = only(spans, 'invoke_agent support');
    const start = only(spans, 'afterstop.tool.start');
    const tool = only(spans, 'execute_tool slow');
    expect(start.parentSpanId).toBe(runSpan.spanId);
    expect(start.startNs).toBe(start.endNs);
    // Written at the export, dated at the start: the same instant as the span's.
    expect(start.startNs).toBe(tool.startNs);
    expect(start.attributes).toEqual({
      'afterstop.run.id': run.id,
      'afterstop.framework': 'manual',
      'gen_ai.conversation.id': 'conv-t',
      'gen_ai.agent.name': 'support',
      'gen_ai.tool.name': 'slow',
      'gen_ai.tool.call.id': 'call_open',
      // The effect class and the kind are on the start marker too: a call that never ends is still known by them.
      'afterstop.tool.effect': 'irreversible',
      'afterstop.tool.kind': 'step',
    });
    expect(tool.endNs - tool.startNs).toBeGreaterThan(4_000_000n);
  });

  it('defaults the effect to unknown and generates a call id', async () => {
    const run = startRun({});
    let seen = '';
    await run.tool({ name: 'x' }, (ctx) => {
      seen = ctx.callId;
    });
    run.end();
    const tool = only(await capture.spans(run.id), 'execute_tool x');
    expect(tool.attributes['afterstop.tool.effect']).toBe('unknown');
    expect(seen).toMatch(/^call_/);
    expect(tool.attributes['gen_ai.tool.call.id']).toBe(seen);
  });

  it('runs the body inside the tool span, so its own spans nest under it', async () => {
    const run = startRun({});
    let parentId = '';
    await run.tool({ name: 'nested' }, () => {
      parentId = trace.getSpan(context.active())?.spanContext().spanId ?? '';
    });
    run.end();
    expect(parentId).toBe(only(await capture.spans(run.id), 'execute_tool nested').spanId);
  });

  it('passes the very same error through and marks the span ERROR', async () => {
    const run = startRun({});
    const failure = Object.assign(new Error('mail server said no'), { status: 503 });
    await expect(run.tool({ name: 'send' }, () => Promise.reject(failure))).rejects.toBe(failure);
    const sync = new RangeError('sync');
    await expect(
      run.tool({ name: 'sync' }, () => {
        throw sync;
      }),
    ).rejects.toBe(sync);
    const odd = { not: 'an error' };
    await expect(run.tool({ name: 'odd' }, () => Promise.reject(odd))).rejects.toBe(odd);
    run.end();
    const spans = await capture.spans(run.id);
    const send = only(spans, 'execute_tool send');
    expect(send.statusCode).toBe(2);
    expect(send.statusMessage).toBe('mail server said no');
    expect(send.attributes['error.type']).toBe('503');
    expect(send.attributes['afterstop.tool.result']).toBe('delivered');
    expect(only(spans, 'execute_tool sync').attributes['error.type']).toBe('RangeError');
    expect(only(spans, 'execute_tool odd').attributes['error.type']).toBe('Error');
  });

  it('marks a body that stopped on the signal as cancelled and signal-observed', async () => {
    const run = startRun({});
    const pending = run.tool({ name: 'send_email', callId: 'c9', effect: 'irreversible' }, (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))));
    const outcome = pending.catch((error: unknown) => error);
    await sleep(5);
    await run.cancel();
    expect(await outcome).toBe(run.signal.reason);
    run.acknowledge();
    run.end();
    const tool = only(await capture.spans(run.id), 'execute_tool send_email');
    expect(tool.attributes).toMatchObject({
      'afterstop.tool.result': 'cancelled',
      'afterstop.tool.signal_observed': true,
      'error.type': 'cancelled',
    });
    expect(tool.statusCode).toBe(2);
  });

  it('marks a result that comes after the acknowledge as late, and not signal-observed', async () => {
    const run = startRun({});
    const pending = run.tool({ name: 'send_email' }, async () => {
      await sleep(40);
      return 'sent';
    });
    await run.cancel();
    run.acknowledge();
    await expect(pending).resolves.toBe('sent');
    run.end();
    const tool = only(await capture.spans(run.id), 'execute_tool send_email');
    expect(tool.attributes['afterstop.tool.result']).toBe('late');
    expect(tool.attributes['afterstop.tool.signal_observed']).toBe(false);
    expect(tool.statusCode).toBe(0);
  });

  it('lets the body say what became of the result', async () => {
    const run = startRun({});
    await run.tool({ name: 'x' }, (ctx) => ctx.setResult('dropped'));
    run.end();
    expect(only(await capture.spans(run.id), 'execute_tool x').attributes['afterstop.tool.result']).toBe('dropped');
  });
});

describe('commit marker', () => {
  it('carries the run cancel state at that instant, under the tool span', async () => {
    const run = startRun({ conversationId: 'conv-c' });
    const gate = { open: (): void => {} };
    const opened = new Promise<void>((resolve) => (gate.open = resolve));
    const pending = run.tool({ name: 'charge', callId: 'c1', effect: 'irreversible', idempotencyKey: 'order-1' }, async (ctx) => {
      await ctx.commit(); // before Stop
      await opened;
      await ctx.commit(); // after the request
      await sleep(10);
      await ctx.commit(); // after the acknowledge
      return 'ok';
    });
    await sleep(5);
    await run.cancel();
    gate.open();
    await sleep(2);
    run.acknowledge();
    await pending;
    run.end();
    const spans = await capture.spans(run.id);
    const tool = only(spans, 'execute_tool charge');
    const commits = named(spans, 'afterstop.tool.commit').sort((a, b) => Number(a.startNs - b.startNs));
    expect(commits.map((c) => c.attributes['afterstop.cancel.state'])).toEqual(['none', 'requested', 'acknowledged']);
    for (const commit of commits) {
      expect(commit.parentSpanId).toBe(tool.spanId);
      expect(commit.startNs).toBe(commit.endNs);
      expect(commit.attributes).toMatchObject({
        'gen_ai.tool.name': 'charge',
        'gen_ai.tool.call.id': 'c1',
        'afterstop.tool.effect': 'irreversible',
        'afterstop.tool.idempotency_key': 'order-1',
        'gen_ai.conversation.id': 'conv-c',
      });
    }
  });

  it('can be written after the tool call ended (a body that commits late)', async () => {
    const run = startRun({});
    const call = run.startTool({ name: 'bg' });
    call.end({ result: 'dropped' });
    call.end({ result: 'delivered' });
    await call.commit();
    run.end();
    const spans = await capture.spans(run.id);
    expect(only(spans, 'execute_tool bg').attributes['afterstop.tool.result']).toBe('dropped');
    expect(named(spans, 'afterstop.tool.commit')).toHaveLength(1);
  });
});

describe('time order', () => {
  it("dates every start marker at its tool span's start, and puts spans in the order they happened", async () => {
    const run = startRun({});
    // Every other call is open across an export, so it has a start marker.
    for (let i = 0; i < 50; i++) await run.tool({ name: 'quick', callId: `q${i}` }, async () => (i % 2 === 0 ? flush(5000) : i));
    run.end();
    const spans = await capture.spans(run.id);
    const starts = named(spans, 'afterstop.tool.start');
    const tools = named(spans, 'execute_tool quick');
    expect(tools).toHaveLength(50);
    expect(starts.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `q${i * 2}`).sort());
    for (const start of starts) {
      const tool = tools.find((t) => t.attributes['gen_ai.tool.call.id'] === start.attributes['gen_ai.tool.call.id'])!;
      expect(start.startNs).toBe(tool.startNs);
    }
    const ordered = [...tools].sort((a, b) => Number(a.startNs - b.startNs)).map((t) => t.attributes['gen_ai.tool.call.id']);
    expect(ordered).toEqual(Array.from({ length: 50 }, (_, i) => `q${i}`));
  });
});

describe('tool calls started after the cancel', () => {
  it('are still recorded, and end once', async () => {
    const run = startRun({});
    await run.cancel();
    run.acknowledge();
    await run.tool({ name: 'after' }, () => 'still ran');
    run.end();
    const spans = await capture.spans(run.id);
    expect(named(spans, 'execute_tool after')).toHaveLength(1);
    expect(only(spans, 'execute_tool after').attributes['afterstop.tool.result']).toBe('late');
    // It ended before the next export: its span is the record of its start.
    expect(named(spans, 'afterstop.tool.start')).toHaveLength(0);
  });
});
