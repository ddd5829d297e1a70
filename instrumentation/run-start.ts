import { disabledPipeline, getPipeline, resolveConfig } from './pipeline.js';
import { InstrumentedRun } from './run.js';
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
