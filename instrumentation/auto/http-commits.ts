import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import { detectorDisabled, detectorEnabled } from '../adapter-api.js';
import { SwitchedInstrumentation } from './switched-instrumentation.js';

/**
 * The HTTP commit detector (commit-detection.ts) as an auto-instrumentation:
 * it patches nothing; while enabled, the tools of the instrumented frameworks
 * detect their commits.
 */
/** Subscribes to the channels on enable(), unsubscribes on disable(). */
export class HttpCommitInstrumentation extends SwitchedInstrumentation {
  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-http-commits', config);
  }

  protected on(): void {
    detectorEnabled();
  }

  protected off(): void {
    detectorDisabled();
  }
}
