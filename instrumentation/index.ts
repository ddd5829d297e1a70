/**
 * afterstop's manual instrumentation API: spans for an agent's Stop button.
 *
 * ```ts
 * import { startRun } from 'afterstop';
 * const run = startRun({ agentName: 'support', conversationId: thread.id });
 * stopButton.onclick = () => run.cancel({ source: 'user' });
 * ```
 */
import { disabledPipeline, getPipeline, resolveConfig, setupPipeline, shutdownPipeline } from './pipeline.js';
import { InstrumentedRun } from './run.js';
import { reportInternalError } from './safe.js';
import type { AfterstopConfig, ExportStats, Run, RunOptions } from './types.js';

export type * from './types.js';
export { CancelledError, isAbortError } from './errors.js';
export * as semconv from './semconv.js';
export { VERSION } from './version.js';

/**
 * Start a run: one user turn of an agent. Sets up the pipeline with defaults
 * on first use (see {@link setup}). Never throws: if telemetry fails, the run
 * still gives a working signal, cancel, checkpoint and tool wrapper.
 */
export function startRun(options: RunOptions = {}): Run {
  try {
    return new InstrumentedRun(getPipeline(), options);
  } catch (error) {
    reportInternalError('run start', error);
    return new InstrumentedRun(disabledPipeline(resolveConfig({ exporter: 'none' }), true), options);
  }
}

/**
 * Start a run, give it to `body`, and end it with the right outcome. The
 * body's value and errors pass through unchanged.
 */
export async function withRun<T>(options: RunOptions, body: (run: Run) => T | Promise<T>): Promise<T> {
  const run = startRun(options);
  try {
    const value = await body(run);
    run.end();
    return value;
  } catch (error) {
    run.end({ error });
    throw error;
  }
}

/**
 * Set up the pipeline explicitly (otherwise the first run does it with
 * defaults). Joins an OpenTelemetry SDK the app already started, or starts
 * one. A second call returns what the first set up.
 */
export function setup(config: AfterstopConfig = {}): { mode: 'own' | 'joined' | 'disabled' } {
  return { mode: setupPipeline(config).mode };
}

/** Export what is queued now; resolves within `timeoutMs` (default: the flush timeout). Never rejects. */
export function flush(timeoutMs?: number): Promise<void> {
  const pipeline = getPipeline();
  return pipeline.flush(timeoutMs ?? pipeline.config.flushTimeoutMs);
}

/** Spans queued, exported and dropped so far by afterstop's own processor. */
export function exportStats(): ExportStats {
  return getPipeline().stats();
}

/** Flush and stop the pipeline (call before a planned exit). Never rejects. */
export function shutdown(): Promise<void> {
  return shutdownPipeline();
}
