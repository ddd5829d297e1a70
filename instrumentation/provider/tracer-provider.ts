/**
 * afterstop's own tracer provider, registered when the app has no OpenTelemetry SDK (pipeline.ts,
 * traces only): an implementation of the OpenTelemetry API with the semantics of the SDK's
 * NodeTracerProvider for what afterstop and the libraries it reads call (spans, sampling from
 * OTEL_TRACES_SAMPLER, span limits from OTEL_SPAN_* / OTEL_ATTRIBUTE_*), without its packages.
 * `register()` installs it with the same context manager (AsyncLocalStorage) and W3C propagators.
 */
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, propagation, trace, type Sampler, type Tracer, type TracerOptions, type TracerProvider } from '@opentelemetry/api';
import { spanLimitsFromEnv, type SpanLimits } from './limits.js';
import { MultiSpanProcessor } from './multi-span-processor.js';
import { w3cPropagator } from './propagator.js';
import { samplerFromEnv } from './sampler.js';
import type { Resource, SpanProcessor } from './sdk-types.js';
import { AfterstopTracer } from './tracer.js';

type Env = Record<string, string | undefined>;

export interface ProviderOptions {
  resource: Resource;
  spanProcessors: SpanProcessor[];
  /** Where OTEL_TRACES_SAMPLER and the span limits are read (process.env by default). */
  env?: Env;
  /** Instead of OTEL_TRACES_SAMPLER's. */
  sampler?: Sampler;
  /** Instead of the environment's. */
  spanLimits?: Partial<SpanLimits>;
  /** How long forceFlush waits for each processor (30 s, as the SDK). */
  forceFlushTimeoutMillis?: number;
}

export class AfterstopTracerProvider implements TracerProvider {
  /** Named as the SDK's: pipeline.ts recognises a registered provider by it. */
  readonly _activeSpanProcessor: MultiSpanProcessor;
  private readonly tracers = new Map<string, AfterstopTracer>();
  private readonly resource: Resource;
  private readonly sampler: Sampler;
  private readonly spanLimits: SpanLimits;
  private readonly forceFlushTimeoutMillis: number;

  constructor(options: ProviderOptions) {
    const env = options.env ?? process.env;
    this.resource = options.resource;
    this._activeSpanProcessor = new MultiSpanProcessor(options.spanProcessors);
    this.sampler = options.sampler ?? samplerFromEnv(env);
    this.spanLimits = { ...spanLimitsFromEnv(env), ...options.spanLimits };
    this.forceFlushTimeoutMillis = options.forceFlushTimeoutMillis ?? 30_000;
  }

  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    const key = `${name}@${version || ''}:${options?.schemaUrl || ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      tracer = new AfterstopTracer({ name, version, schemaUrl: options?.schemaUrl }, { resource: this.resource, sampler: this.sampler, spanLimits: this.spanLimits, spanProcessor: this._activeSpanProcessor });
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  /** Each processor's flush, each for at most forceFlushTimeoutMillis; rejects with what failed or timed out. */
  forceFlush(): Promise<void> {
    const timeout = this.forceFlushTimeoutMillis;
    const flushes = this._activeSpanProcessor._spanProcessors.map(
      (processor) =>
        new Promise<Error | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(new Error(`Span processor did not completed within timeout period of ${timeout} ms`)), timeout);
          processor.forceFlush().then(
            () => {
              clearTimeout(timer);
              resolve(undefined);
            },
            (error: unknown) => {
              clearTimeout(timer);
              resolve(error instanceof Error ? error : new Error(String(error)));
            },
          );
        }),
    );
    return Promise.all(flushes).then((results) => {
      const errors = results.filter((result) => result !== undefined);
      if (errors.length > 0) throw errors;
    });
  }

  shutdown(): Promise<void> {
    return this._activeSpanProcessor.shutdown();
  }

  /** Global tracer provider, AsyncLocalStorage context manager and W3C trace-context + baggage propagator, as NodeTracerProvider.register(). */
  register(): void {
    trace.setGlobalTracerProvider(this);
    const manager = new AsyncLocalStorageContextManager();
    manager.enable();
    context.setGlobalContextManager(manager);
    propagation.setGlobalPropagator(w3cPropagator());
  }
}
