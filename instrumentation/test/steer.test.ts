import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { captureTraces, named, only, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

describe('steering markers', () => {
  it('records enqueue, inject with position, and drop with reason', async () => {
    const run = startRun({ conversationId: 'conv-s' });
    const s1 = run.steering.enqueue('s1');
    const s2 = run.steering.enqueue();
    expect(s1).toBe('s1');
    expect(s2).toMatch(/^steer_/);
    run.steering.inject(s1, 'between_steps');
    run.steering.inject(s2, 'inside_tool_batch');
    run.steering.drop('s3', 'run ended');
    run.end();
    const spans = await capture.spans(run.id);
    const runSpan = only(spans, 'invoke_agent');
    const enqueues = named(spans, 'afterstop.steer.enqueue');
    expect(enqueues.map((s) => s.attributes['afterstop.steer.id']).sort()).toEqual([s1, s2].sort());
    const injects = named(spans, 'afterstop.steer.inject');
    expect(Object.fromEntries(injects.map((s) => [s.attributes['afterstop.steer.id'], s.attributes['afterstop.steer.position']]))).toEqual({
      [s1]: 'between_steps',
      [s2]: 'inside_tool_batch',
    });
    const drop = only(spans, 'afterstop.steer.drop');
    expect(drop.attributes).toMatchObject({ 'afterstop.steer.id': 's3', 'afterstop.steer.reason': 'run ended', 'gen_ai.conversation.id': 'conv-s' });
    for (const marker of [...enqueues, ...injects, drop]) {
      expect(marker.parentSpanId).toBe(runSpan.spanId);
      expect(marker.startNs).toBe(marker.endNs);
    }
  });
});
