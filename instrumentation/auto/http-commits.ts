import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import { detectorDisabled, detectorEnabled, VERSION } from '../adapter-api.js';

/**
 * The HTTP commit detector (commit-detection.ts) as an auto-instrumentation:
 * it patches nothing; while enabled, the tools of the instrumented frameworks
 * detect their commits.
 */
/** Subscribes to the channels on enable(), unsubscribes on disable(). */
export class HttpCommitInstrumentation implements Instrumentation {
  static readonly module: string | undefined = undefined;
  readonly instrumentationName = 'afterstop-http-commits';
  readonly instrumentationVersion = VERSION;
  private config: InstrumentationConfig;
  private enabled = false;

  constructor(config: InstrumentationConfig = {}) {
    this.config = config;
  }

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    detectorEnabled();
  }

  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    detectorDisabled();
  }

  setTracerProvider(): void {}
  setMeterProvider(): void {}
  setConfig(config: InstrumentationConfig): void {
    this.config = config;
  }
  getConfig(): InstrumentationConfig {
    return this.config;
  }
}
