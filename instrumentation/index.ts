/**
 * afterstop's manual instrumentation API: spans for an agent's Stop button.
 *
 * ```ts
 * import { startRun } from 'afterstop';
 * const run = startRun({ agentName: 'support', conversationId: thread.id });
 * stopButton.onclick = () => run.cancel({ source: 'user' });
 * ```
 */
import { context } from '@opentelemetry/api';
import { getPipeline, pipelineExists, pipelineStats, setupPipeline, shutdownPipeline } from './pipeline.js';
import type { InstrumentedRun } from './run.js';
import { startRun } from './run-start.js';
import { setupGuard } from './guard/setup.js';
import { setupTraceContext } from './request-span.js';
import type { AfterstopConfig, ExportStats, Run, RunOptions } from './types.js';

export type * from './types.js';
export { CancelledError, CommitFencedError, DeadlineExceededError, isAbortError } from './errors.js';
export * as semconv from './semconv.js';
export { startRun } from './run-start.js';
export { afterStopCleanup } from './guard/index.js';
export { captureContent } from './content.js';
export { VERSION } from './version.js';

/**
 * Start a run, give it to `body`, and end it with the right outcome. The
 * body's value and errors pass through unchanged. Inside `body`, model calls
 * of the auto-instrumented SDKs belong to this run.
 */
export async function withRun<T>(options: RunOptions, body: (run: Run) => T | Promise<T>): Promise<T> {
  const run = startRun(options);
  try {
    // The body runs in the run's context: auto-instrumented model and tool calls attach to the run.
    const value = await context.with((run as InstrumentedRun).context, () => body(run));
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
  const existed = pipelineExists();
  const mode = setupPipeline(config).mode;
  // The guard is not part of the pipeline: a later setup({ guard }) applies, also after afterstop/register.
  if (existed && config.guard !== undefined) setupGuard(config.guard);
  // So is trace context on tool requests.
  if (existed && config.traceContext !== undefined) setupTraceContext(config.traceContext);
  return { mode };
}

/** Export what is queued now; resolves within `timeoutMs` (default: the flush timeout). Never rejects. */
export function flush(timeoutMs?: number): Promise<void> {
  const pipeline = getPipeline();
  return pipeline.flush(timeoutMs ?? pipeline.config.flushTimeoutMs);
}

/** Spans queued, exported and dropped so far by afterstop's own processor (after shutdown(): its final counts). */
export function exportStats(): ExportStats {
  return pipelineStats();
}

/** Flush and stop the pipeline (call before a planned exit). Never rejects. */
export function shutdown(): Promise<void> {
  return shutdownPipeline();
}
