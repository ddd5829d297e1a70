import { trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, isAbortError, shutdown, startRun, withRun } from '../index.js';

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

describe('callbacks and hostile values', () => {
  it('works with destructured tool contexts and unbound methods', async () => {
    const { captureTraces, named } = await import('../../test/helpers/capture.js');
    const capture = captureTraces();
    try {
      const run = startRun({});
      const { cancel, checkpoint, end, startModelCall } = run;
      const value = await run.tool({ name: 'destructured' }, async ({ signal, commit, setResult }) => {
        await cancel();
        await commit();
        setResult('dropped');
        return signal.aborted;
      });
      expect(value).toBe(true);
      const { chunk, end: endCall } = startModelCall({ provider: 'openai', model: 'm' });
      chunk(2);
      endCall();
      expect(() => checkpoint()).toThrow(CancelledError);
      end();
      const spans = await capture.spans(run.id);
      const commit = named(spans, 'afterstop.tool.commit');
      expect(commit).toHaveLength(1);
      expect(commit[0]!.attributes['afterstop.cancel.state']).toBe('requested');
      expect(named(spans, 'execute_tool destructured')[0]!.attributes['afterstop.tool.result']).toBe('dropped');
      expect(named(spans, 'chat m')[0]!.attributes['afterstop.model.output_tokens_streamed']).toBe(2);
    } finally {
      await capture.close();
    }
  });

  it('ends every span even when the error describing its failure throws from its getters', async () => {
    const { captureTraces, named } = await import('../../test/helpers/capture.js');
    const capture = captureTraces();
    try {
      const hostile = new Proxy(
        {},
        {
          get() {
            throw new Error('getter bomb');
          },
          has() {
            throw new Error('has bomb');
          },
        },
      );
      const run = startRun({});
      await expect(run.tool({ name: 'bomb' }, () => Promise.reject(hostile))).rejects.toBe(hostile);
      const call = run.startModelCall({ provider: 'openai', model: 'bomb' });
      call.end({ error: hostile });
      run.end({ error: hostile });
      const spans = await capture.spans(run.id);
      expect(named(spans, 'execute_tool bomb')).toHaveLength(1);
      expect(named(spans, 'chat bomb')).toHaveLength(1);
      expect(named(spans, 'invoke_agent')).toHaveLength(1);
    } finally {
      await capture.close();
    }
  });
});
