import { disabledPipeline, getPipeline, resolveConfig } from './pipeline.js';
import { InstrumentedRun } from './run.js';
import { activeRun } from './run-context.js';
import { reportInternalError } from './safe.js';
import type { Run, RunOptions } from './types.js';

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

/** What a framework's call knows of the run it would start (any of it may be missing). */
export interface FrameworkRunStart {
  framework: string;
  signal?: AbortSignal | undefined;
  /** Kept when a non-empty string. */
  agentName?: unknown;
  /** Kept when a non-empty string. */
  conversationId?: unknown;
}

/**
 * The run a framework's call belongs to: the active one (the app's own, or an
 * enclosing call's), else one started for this call. `own`: started here,
 * so the caller ends it.
 */
export function joinOrStartRun(start: FrameworkRunStart): { run: Run; own: boolean } {
  const active = activeRun();
  if (active !== undefined) return { run: active, own: false };
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const run = startRun({
    framework: start.framework,
    ...(start.signal ? { signal: start.signal } : {}),
    ...(text(start.agentName) ? { agentName: start.agentName } : {}),
    ...(text(start.conversationId) ? { conversationId: start.conversationId } : {}),
  });
  // The framework runs it: the run's signal (the guard's deadline) reaches it only where afterstop hands it over.
  if (run instanceof InstrumentedRun) run.startedForFramework();
  return { run, own: true };
}
