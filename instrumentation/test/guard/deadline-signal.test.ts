import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceededError, startRun } from '../../index.js';
import { withRunSignal } from '../../run-signal.js';
import { setupGuard } from '../../guard/setup.js';
import { joinOrStartRun } from '../../run-start.js';
import { endStoppedRun } from '../../run-context.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../../test/helpers/capture.js';

/** How a framework call's options get the run's deadline (run-signal.ts). */
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

describe('withRunSignal', () => {
  it('without a deadline: the same options object, untouched', () => {
    const run = startRun({ deadlineMs: false });
    const options = { signal: new AbortController().signal, x: 1 };
    expect(withRunSignal(run, options, 'signal')).toBe(options);
    expect(withRunSignal(run, undefined, 'signal')).toBeUndefined();
    run.end();
  });

  it('with one: a copy whose signal aborts at the deadline, with a DeadlineExceededError; the app’s options object is not changed', async () => {
    const run = startRun({ deadlineMs: 30 });
    const app = new AbortController();
    const options = Object.freeze({ signal: app.signal, x: 1 });
    const given = withRunSignal(run, options, 'signal') as { signal: AbortSignal; x: number };
    expect(given).not.toBe(options);
    expect(given.x).toBe(1);
    expect(options.signal).toBe(app.signal);
    await sleep(60);
    expect(given.signal.aborted).toBe(true);
    expect(DeadlineExceededError.isInstance(given.signal.reason)).toBe(true);
    expect(app.signal.aborted).toBe(false);
    run.end();
  });

  it('aborts with the app’s own reason when the app’s signal aborts first; no options: the run’s signal', () => {
    const run = startRun({ deadlineMs: 10_000 });
    const app = new AbortController();
    const given = withRunSignal(run, { signal: app.signal }, 'abortSignal') as Record<string, AbortSignal>;
    const own = withRunSignal(run, { abortSignal: app.signal }, 'abortSignal') as Record<string, AbortSignal>;
    expect(given['abortSignal']).toBe(run.signal); // the key it reads is abortSignal: none there
    const reason = new Error('user pressed Stop');
    app.abort(reason);
    expect(own['abortSignal']!.reason).toBe(reason);
    run.end();
  });

  it('leaves an app’s signal that is not a native AbortSignal alone; unlinks from the app’s signal when the run ends', () => {
    const run = startRun({ deadlineMs: 10_000 });
    const polyfill = { aborted: false, addEventListener() {}, removeEventListener() {} };
    const options = { signal: polyfill };
    expect(withRunSignal(run, options, 'signal')).toBe(options);
    const longLived = new AbortController().signal;
    for (let i = 0; i < 3; i++) withRunSignal(run, { signal: longLived }, 'signal');
    expect(getEventListeners(longLived, 'abort')).toHaveLength(3);
    run.end();
    expect(getEventListeners(longLived, 'abort')).toHaveLength(0);
    expect(withRunSignal(run, options, 'signal')).toBe(options);
  });

  for (const handed of [false, true]) {
    it(`a framework run whose signal ${handed ? 'was handed to its call: the deadline cancel is delivered and the framework’s stop acknowledges it' : 'never reached its framework (the app’s polyfill signal): the deadline cancel is marked not delivered, the framework’s end acknowledges nothing, the run ends completed'}`, async () => {
      setupGuard({ deadlineMs: 30 }, {});
      let run;
      try {
        ({ run } = joinOrStartRun({ framework: 'test-framework' }));
      } finally {
        setupGuard(undefined, {});
      }
      const signal = handed ? new AbortController().signal : { aborted: false, addEventListener() {}, removeEventListener() {} };
      const options = { signal };
      const given = withRunSignal(run, options, 'signal');
      expect(given === options).toBe(!handed);
      await new Promise((resolve) => run.signal.addEventListener('abort', resolve, { once: true }));
      endStoppedRun(run, undefined, true);
      const spans = await capture.spans(run.id);
      expect(only(spans, 'afterstop.cancel.request').attributes).toMatchObject({ 'afterstop.cancel.source': 'timeout', 'afterstop.cancel.deadline_ms': 30, 'afterstop.cancel.delivered': handed });
      expect(named(spans, 'afterstop.cancel.ack')).toHaveLength(handed ? 1 : 0);
      expect(spans.find((s) => s.name.startsWith('invoke_agent'))?.attributes['afterstop.run.outcome']).toBe(handed ? 'cancelled' : 'completed');
    });
  }
});
