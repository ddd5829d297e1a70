import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, startRun, type ModelCall, type Run, type ToolCall } from '../index.js';
import { captureTraces, type TraceCapture } from '../../test/helpers/capture.js';
import { huntRuns, huntSeed } from '../../test/helpers/hunt.js';

/**
 * The manual API driven in random orders (fast-check): cancel before and after
 * start, twice, after end; tools started after the cancel, ended twice,
 * committing after their end; ids that are not strings; attribute values of a
 * megabyte. Nothing throws into the caller (but the checkpoint's
 * CancelledError, which is the API), the caller's results and errors pass
 * through unchanged, and every span is exported once.
 */
// The unit tier tries the first 10 cases, the e2e tier 40 (the same seed). PROPERTY_RUNS and PROPERTY_SEED for a
// longer hunt (each run reads back every trace written so far: the time limit grows).
const RUNS = huntRuns('PROPERTY_RUNS', { unit: 10, full: 40 });
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

const weird = fc.oneof(fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null), fc.constant({}), fc.constant('x'.repeat(1_000_000)), fc.constant('\u0000\u001b[2J<script>'));

type Op =
  | { op: 'start'; conversation: unknown; agent: unknown }
  | { op: 'cancel' | 'ack' | 'end' | 'endError' | 'checkpoint' | 'toolEnd' | 'commit' | 'model' | 'steer' | 'repair'; run: number; id: unknown }
  | { op: 'tool'; run: number; id: unknown; value: unknown; fails: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('start' as const), conversation: weird, agent: weird }),
  fc.record({ op: fc.constantFrom('cancel', 'ack', 'end', 'endError', 'checkpoint', 'toolEnd', 'commit', 'model', 'steer', 'repair'), run: fc.nat(7), id: weird }),
  fc.record({ op: fc.constant('tool' as const), run: fc.nat(7), id: weird, value: fc.anything(), fails: fc.boolean() }),
);

describe('the manual API in random orders', () => {
  it(
    'never throws into the caller, passes results and errors through, and exports every span once',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
          const runs: Run[] = [];
          const calls: ToolCall[] = [];
          const models: ModelCall[] = [];
          for (const o of ops) {
            if (o.op === 'start') {
              runs.push(startRun({ conversationId: o.conversation as string, agentName: o.agent as string, framework: 'property' }));
              continue;
            }
            const run = runs[o.run % Math.max(1, runs.length)];
            if (run === undefined) continue;
            switch (o.op) {
              case 'cancel':
                await run.cancel({ source: o.id as never, reason: o.id as string });
                break;
              case 'ack':
                run.acknowledge();
                break;
              case 'end':
                run.end();
                break;
              case 'endError':
                run.end({ error: o.id });
                break;
              case 'checkpoint':
                try {
                  run.checkpoint();
                  expect(run.cancelState).toBe('none');
                } catch (error) {
                  expect(CancelledError.isInstance(error)).toBe(true);
                  expect(run.cancelState).not.toBe('none');
                }
                break;
              case 'toolEnd':
                calls.at(-1)?.end();
                calls.at(-1)?.end({ error: o.id });
                break;
              case 'commit':
                await calls.at(-1)?.commit();
                break;
              case 'model': {
                const m = run.startModelCall({ provider: o.id as string, model: o.id as string });
                m.chunk(3);
                m.usage({ inputTokens: 5, outputTokens: Number.NaN });
                m.end();
                m.end();
                models.push(m);
                break;
              }
              case 'steer': {
                const id = run.steering.enqueue(o.id as string);
                run.steering.inject(id, 'between_steps');
                run.steering.drop(id, o.id as string);
                break;
              }
              case 'repair':
                run.repairHistory({ strategy: 'synthetic_result', toolCallIds: [o.id as string, 'k'] });
                break;
              case 'tool': {
                calls.push(run.startTool({ name: o.id as string, callId: o.id as string }));
                const thrown = new Error('the tool failed');
                const result = run.tool({ name: 't', callId: o.id as string }, async () => {
                  if (o.fails) throw thrown;
                  return o.value;
                });
                if (o.fails) await expect(result).rejects.toBe(thrown);
                else expect(await result).toBe(o.value);
                break;
              }
            }
          }
          for (const c of calls) c.end();
          for (const r of runs) r.end();
          const spans = await capture.spans();
          const ids = spans.map((s) => `${s.traceId}/${s.spanId}`);
          expect(new Set(ids).size).toBe(ids.length);
          for (const r of runs) expect(spans.filter((s) => s.name.startsWith('invoke_agent') && s.spanId === r.id)).toHaveLength(1);
        }),
        { numRuns: RUNS, ...huntSeed('PROPERTY_SEED', 20261129) },
      );
    },
    Math.max(180_000, RUNS * 3000),
  );

  it('two thousand runs at once, each cancelled, acknowledged and ended: one run span each, all exported', async () => {
    const runs = Array.from({ length: 2000 }, (_, i) => startRun({ conversationId: `c-${i}`, framework: 'property' }));
    await Promise.all(
      runs.map(async (r, i) => {
        await r.tool({ name: 'noop', callId: `k-${i}` }, async () => i);
        await r.cancel();
        r.acknowledge();
        r.end();
      }),
    );
    const spans = await capture.spans();
    const ours = new Set(runs.map((r) => r.id));
    expect(spans.filter((s) => s.name.startsWith('invoke_agent') && ours.has(s.spanId))).toHaveLength(2000);
  }, 60_000);
});
