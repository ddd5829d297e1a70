import { trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, isAbortError, shutdown, startRun, withRun } from '../../instrumentation/index.js';

/** A tracer provider whose every tracer fails: the worst an OpenTelemetry setup can do to us. */
const broken: TracerProvider = {
  getTracer(): Tracer {
    return {
      startSpan() {
        throw new Error('tracer is broken');
      },
      startActiveSpan() {
        throw new Error('tracer is broken');
      },
    } as unknown as Tracer;
  },
};

afterEach(async () => {
  await shutdown();
  trace.disable();
});

describe('when telemetry fails', () => {
  it('the app runs as if afterstop were absent', async () => {
    trace.setGlobalTracerProvider(broken);
    const run = startRun({ agentName: 'x' });
    const failure = new Error('tool failed');
    await expect(run.tool({ name: 'ok' }, async (ctx) => (ctx.signal.aborted ? 'aborted' : 'value'))).resolves.toBe('value');
    await expect(run.tool({ name: 'bad' }, () => Promise.reject(failure))).rejects.toBe(failure);
    const call = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    call.chunk(3);
    call.end();
    run.steering.enqueue('s');
    run.repairHistory({ strategy: 'drop_turn', toolCallIds: ['c'] });
    const tool = run.startTool({ name: 'manual' });
    await tool.commit();
    tool.end();
    await run.cancel();
    expect(run.signal.aborted).toBe(true);
    expect(() => run.checkpoint()).toThrow(CancelledError);
    run.end();
    await expect(withRun({}, async () => 'through')).resolves.toBe('through');
  });
});

describe('errors', () => {
  it('CancelledError has a name, a Symbol.for marker and isInstance', () => {
    const error = new CancelledError('stopped', { cancelId: 'k1' });
    expect(error.name).toBe('AbortError');
    expect(error.cancelId).toBe('k1');
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(CancelledError.isInstance(new Error('x'))).toBe(false);
    expect(CancelledError.isInstance(null)).toBe(false);
    // A copy of afterstop loaded twice recognises the other's errors.
    const foreign = Object.assign(new Error('x'), { [Symbol.for('afterstop.error')]: true });
    expect(CancelledError.isInstance(foreign)).toBe(true);
  });

  it('isAbortError knows the abort errors of fetch, the SDKs and the signal', () => {
    const controller = new AbortController();
    controller.abort(new Error('custom reason'));
    expect(isAbortError(controller.signal.reason, controller.signal)).toBe(true);
    expect(isAbortError(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe(true);
    expect(isAbortError(Object.assign(new Error('x'), { name: 'APIUserAbortError' }))).toBe(true);
    expect(isAbortError(new Error('x'))).toBe(false);
    expect(isAbortError(undefined)).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
  });
});
