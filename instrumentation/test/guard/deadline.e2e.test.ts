import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceededError, isAbortError, setup, startRun } from '../../index.js';
import { setupGuard } from '../../guard/setup.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../../test/helpers/capture.js';
import { distModule, lastJson, runModule } from '../../../test/helpers/child.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(async () => {
  setupGuard(undefined, {});
  await capture.close();
});

describe('the run deadline (manual API)', () => {
  it('cancels a run that outlasts it, with source `timeout` and the deadline on the request; the signal’s reason is a DeadlineExceededError', async () => {
    const run = startRun({ deadlineMs: 60 });
    const started = performance.now();
    const outcome = await run.tool({ name: 'slow' }, ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))).catch((e: unknown) => e);
    const waited = performance.now() - started;
    run.end({ error: outcome });
    expect(DeadlineExceededError.isInstance(outcome)).toBe(true);
    expect((outcome as Error).name).toBe('TimeoutError');
    expect(isAbortError(outcome)).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(55);
    const spans = await capture.spans(run.id);
    expect(only(spans, 'afterstop.cancel.request').attributes).toMatchObject({ 'afterstop.cancel.source': 'timeout', 'afterstop.cancel.deadline_ms': 60, 'afterstop.cancel.delivered': true });
    expect(named(spans, 'afterstop.cancel.ack')).toHaveLength(1);
    expect(spans.find((s) => s.name.startsWith('invoke_agent'))?.attributes['afterstop.run.outcome']).toBe('cancelled');
  });

  it('comes from the guard for every run unless a run says otherwise; a run that ends in time is never cancelled', async () => {
    setup({ guard: { deadlineMs: 40 } });
    try {
      const late = startRun();
      const optedOut = startRun({ deadlineMs: false });
      const quick = startRun();
      quick.end();
      await sleep(80);
      expect(late.cancelState).toBe('requested');
      expect(optedOut.cancelState).toBe('none');
      late.end();
      optedOut.end();
      expect(named(await capture.spans(quick.id), 'afterstop.cancel.request')).toHaveLength(0);
      expect(named(await capture.spans(optedOut.id), 'afterstop.cancel.request')).toHaveLength(0);
    } finally {
      setup({ guard: { deadlineMs: false } });
    }
  });

  it('an app’s own cancel comes first: the deadline adds nothing', async () => {
    const run = startRun({ deadlineMs: 30 });
    await run.cancel({ source: 'user' });
    await sleep(60);
    run.end();
    const request = only(await capture.spans(run.id), 'afterstop.cancel.request').attributes;
    expect(request['afterstop.cancel.source']).toBe('user');
    expect(request['afterstop.cancel.deadline_ms']).toBeUndefined();
  });

  it('never keeps the process alive, and a bad value is ignored with a warning', async () => {
    const result = await runModule(
      `import { startRun } from '${distModule('instrumentation/index.js')}';
       const run = startRun({ deadlineMs: 600000 });
       const bad = startRun({ deadlineMs: -5 });
       process.once('beforeExit', () => console.log('event loop empty'));
       console.log(JSON.stringify({ started: true, bad: bad.cancelState }));`,
      { env: { AFTERSTOP_EXPORTER: 'none', AFTERSTOP_GUARD_DEADLINE_MS: 'soon' }, timeoutMs: 20_000 },
    );
    // It exits because its event loop emptied ('beforeExit'), with the 10-minute deadline pending: a timer
    // that held the loop would leave it running until killed at the 20 s bound (timedOut, no line).
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('event loop empty');
    expect(lastJson<{ bad: string }>(result).bad).toBe('none');
  });
});
