import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import { VERSION } from '../adapter-api.js';

/**
 * An instrumentation that patches nothing: switched on and off (a diagnostics channel subscribed, a detector
 * on), once each way. Its subclass says what `on()` and `off()` do.
 */
export abstract class SwitchedInstrumentation implements Instrumentation {
  static readonly module: string | undefined = undefined;
  readonly instrumentationVersion = VERSION;
  private config: InstrumentationConfig;
  private enabled = false;

  constructor(
    readonly instrumentationName: string,
    config: InstrumentationConfig = {},
  ) {
    this.config = config;
  }

  protected abstract on(): void;
  protected abstract off(): void;

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    this.on();
  }

  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    this.off();
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
