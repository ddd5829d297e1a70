import { setupGuard } from './guard/setup.js';
import { setupTraceContext, stopTraceContext } from './request-span.js';
import * as path from 'node:path';
import { diag, ProxyTracerProvider, trace, type TracerProvider } from '@opentelemetry/api';
import { detectedResource, resourceFromAttributes } from './provider/resource.js';
import type { Resource, SpanProcessor } from './provider/sdk-types.js';
import { AfterstopTracerProvider } from './provider/tracer-provider.js';
import { ForeignToolSpanProcessor } from './foreign-tool-spans.js';
import { BoundedBatchSpanProcessor } from './export/queue.js';
import type { SyncCapableExporter } from './export/sync-capable-exporter.js';
import { hookProcessExit } from './export/exit-flush.js';
import { FileSpanExporter } from './export/file-exporter.js';
import { createOtlpExporter, OTLP_EXPORTER_PACKAGE } from './export/otlp-exporter.js';
import { installHint, loadOptionalPeer } from './optional-peer.js';
import { observeQueue } from './export/self-metrics.js';
import type { Pipeline, ResolvedConfig } from './internal-types.js';
import { AFTERSTOP_SCOPE, ATTR_AFTERSTOP_SCHEMA_VERSION, ATTR_SERVICE_NAME, SCHEMA_VERSION } from './semconv.js';
import { reportInternalError, say, settleWithin } from './safe.js';
import type { AfterstopConfig, ExportStats, ExporterKind } from './types.js';
import { defaultTracesDir } from './traces-dir.js';
import { VERSION } from './version.js';

const NO_STATS: ExportStats = { queued: 0, exported: 0, dropped: 0, failedExports: 0 };

type Env = Record<string, string | undefined>;

/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days); past it they fire after 1 ms, with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A time setting as timers can use it: at most {@link MAX_TIMER_MS}, said once when clamped. */
function timerMs(value: number, name: string): number;
function timerMs(value: number | false, name: string): number | false;
function timerMs(value: number | false, name: string): number | false {
  if (value === false || !(value > MAX_TIMER_MS)) return value;
  diag.warn(`afterstop: ${name}=${value} is longer than a timer can wait; using ${MAX_TIMER_MS} ms`);
  return MAX_TIMER_MS;
}

function numberFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    diag.warn(`afterstop: ignoring ${name}=${raw}: not a non-negative number`);
    return fallback;
  }
  return value;
}

/** The collector the OTLP exporter posts to, from the variables it reads itself (none: its default, http://localhost:4318). */
function otlpEndpoint(env: Env): string | undefined {
  return env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_ENDPOINT'];
}

function exporterFrom(config: AfterstopConfig, env: Env): { kind: ExporterKind; inferred: boolean } {
  const named = config.exporter ?? env['AFTERSTOP_EXPORTER'];
  if (named === 'file' || named === 'otlp' || named === 'none') return { kind: named, inferred: false };
  if (named !== undefined) diag.warn(`afterstop: unknown exporter "${named}"; choosing from the environment`);
  const endpoint = otlpEndpoint(env);
  if (env['OTEL_TRACES_EXPORTER'] === 'none') return { kind: 'none', inferred: true };
  return { kind: endpoint ? 'otlp' : 'file', inferred: true };
}

/** An absolute path when the working folder still exists (it may have been removed under the app). */
function absolute(dir: string): string {
  try {
    return path.resolve(dir);
  } catch {
    return dir;
  }
}

/** Config from code first, then `AFTERSTOP_*` variables, then defaults. */
export function resolveConfig(config: AfterstopConfig = {}, env: Env = process.env): ResolvedConfig & { exporterInferred: boolean } {
  const exporter = exporterFrom(config, env);
  return {
    serviceName: config.serviceName,
    exporter: exporter.kind,
    exporterInferred: exporter.inferred,
    tracesDir: absolute(config.tracesDir ?? defaultTracesDir(env)),
    maxFileBytes: config.maxFileBytes ?? numberFrom(env, 'AFTERSTOP_MAX_FILE_BYTES', 32 * 1024 * 1024),
    maxQueueSize: config.maxQueueSize ?? numberFrom(env, 'AFTERSTOP_MAX_QUEUE_SIZE', 4096),
    maxExportBatchSize: config.maxExportBatchSize ?? 512,
    scheduledDelayMs: timerMs(config.scheduledDelayMs ?? 1000, 'scheduledDelayMs'),
    exportTimeoutMs: timerMs(config.exportTimeoutMs ?? 10_000, 'exportTimeoutMs'),
    flushTimeoutMs: timerMs(config.flushTimeoutMs ?? numberFrom(env, 'AFTERSTOP_FLUSH_TIMEOUT_MS', 2000), 'AFTERSTOP_FLUSH_TIMEOUT_MS'),
    settleDeadlineMs: timerMs(config.settleDeadlineMs ?? numberFrom(env, 'AFTERSTOP_SETTLE_DEADLINE_MS', 5000), 'AFTERSTOP_SETTLE_DEADLINE_MS'),
    processGraceMs: timerMs(config.processGraceMs ?? numberFrom(env, 'AFTERSTOP_PROCESS_GRACE_MS', 5000), 'AFTERSTOP_PROCESS_GRACE_MS'),
  };
}

/** The SDK tracer provider the app registered, if any (not the API's no-op one). */
interface SdkLikeProvider extends TracerProvider {
  forceFlush?(): Promise<void>;
  addSpanProcessor?(processor: SpanProcessor): void;
  _activeSpanProcessor?: Partial<SpanProcessor> & { _spanProcessors?: SpanProcessor[] };
}

function registeredSdkProvider(): SdkLikeProvider | undefined {
  let provider = trace.getTracerProvider() as SdkLikeProvider & { getDelegate?(): TracerProvider };
  if (typeof provider.getDelegate === 'function') provider = provider.getDelegate() as typeof provider;
  const looksLikeSdk = typeof provider.forceFlush === 'function' || typeof provider.addSpanProcessor === 'function' || provider._activeSpanProcessor !== undefined;
  return looksLikeSdk ? provider : undefined;
}

/**
 * Adds `processor` to a provider the app built. SDK 1.x has `addSpanProcessor`;
 * SDK 2.x takes processors only in its constructor, so we append to its
 * multi-processor's list (the one internal shape we rely on; checked at run time).
 * Returns how to take it out again, or undefined when the provider has neither.
 */
function attachProcessor(provider: SdkLikeProvider, processor: SpanProcessor): (() => void) | undefined {
  const list = provider._activeSpanProcessor?._spanProcessors;
  if (Array.isArray(list)) {
    list.push(processor);
    return () => {
      const at = list.indexOf(processor);
      if (at >= 0) list.splice(at, 1);
    };
  }
  if (typeof provider.addSpanProcessor === 'function') {
    provider.addSpanProcessor(processor);
    return () => {};
  }
  return undefined;
}

/**
 * The OTLP exporter's HTTP agent, whose sockets never keep the process alive by themselves: an export to a
 * collector that hangs must not hold the app's exit. A flush someone waits for (`await run.cancel()`, the
 * exit flush, `flush()`) holds the process while it runs, for at most its timeout (queue.ts flushSoon).
 * Made when the exporter asks for it; its module is loaded at set-up (loadTransportAtSetup).
 */
async function unrefAgent(protocol: string): Promise<import('node:http').Agent> {
  const module = protocol === 'https:' ? await import('node:https') : await import('node:http');
  type Connect = (options: object, callback?: (error: Error | null, socket: import('node:net').Socket) => void) => import('node:net').Socket | undefined;
  const Base = module.Agent as unknown as new (options: object) => import('node:http').Agent & { createConnection: Connect };
  const agent = new Base({ keepAlive: true });
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (...args: Parameters<Connect>): ReturnType<Connect> => {
    const socket = connect(...args);
    socket?.unref();
    return socket;
  };
  return agent;
}

/**
 * The OTLP exporter and our agent load node:http or node:https (the collector's protocol) with `import()` at
 * the first export. The ESM facade of a built-in reads every export, and node:http's lazy ones load undici:
 * a 51 ms pause of the app's event loop in the middle of its work (node:https 21 ms; measured,
 * docs/benchmarks.md). Loaded at set-up instead, once. (The commit detector listens on diagnostics_channel,
 * so when the facade is made changes nothing it sees.)
 */
function loadTransportAtSetup(env: Env): void {
  let https = false;
  try {
    https = new URL(otlpEndpoint(env) ?? 'http://localhost').protocol === 'https:';
  } catch {
    // Not a URL: the exporter says so itself, at its first export.
  }
  (https ? import('node:https') : import('node:http')).catch((error: unknown) => reportInternalError('loading the OTLP transport', error));
}

/**
 * The OTLP exporter when spans go to a collector and its package (an optional peer) loads, else the file
 * exporter: without the package, spans are written to trace files, and stderr says so once, with the
 * install command (never dropped in silence).
 */
function makeExporter(config: ResolvedConfig): SyncCapableExporter {
  if (config.exporter === 'otlp') {
    const otlp = createOtlpExporter({ httpAgentOptions: unrefAgent });
    if ('module' in otlp) {
      loadTransportAtSetup(process.env);
      return otlp.module;
    }
    say(`spans go to a collector (OTLP/HTTP) through ${OTLP_EXPORTER_PACKAGE}, which ${otlp.problem}: ${installHint(OTLP_EXPORTER_PACKAGE)}. ` + `Until then they are written to trace files in ${config.tracesDir}`);
  }
  return new FileSpanExporter({ dir: config.tracesDir, maxFileBytes: config.maxFileBytes });
}

function makeProcessor(config: ResolvedConfig): BoundedBatchSpanProcessor {
  return new BoundedBatchSpanProcessor(makeExporter(config), config);
}

/** Whether `provider` is the one the API hands out (its registration may have been refused). */
function isRegistered(provider: unknown): boolean {
  const registered = trace.getTracerProvider() as { getDelegate?(): unknown };
  return provider !== undefined && typeof registered.getDelegate === 'function' && registered.getDelegate() === provider;
}

/**
 * What only the NodeSDK reads from the environment: metric and log exporters, propagators, resource
 * detectors by name, its diagnostic logger. With none of them set, afterstop registers its own tracer provider
 * (provider/tracer-provider.ts): the same resource, sampler, span limits, context manager and propagator as
 * the NodeSDK's, without loading the SDK's metric, log, gRPC and protobuf modules (measured then with the SDK's
 * NodeTracerProvider: import and setup 250 → 160 ms, heap 13.1 → 9.0 MB, RSS 86 → 73 MB), nor its trace and
 * resource packages (docs/architecture.md). test/instrumentation/sdk-choice.test.ts checks that both give the same.
 */
const SDK_ONLY_ENV = ['OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER', 'OTEL_PROPAGATORS', 'OTEL_NODE_RESOURCE_DETECTORS', 'OTEL_LOG_LEVEL'] as const;

interface Registered {
  /** Whether the API hands out this provider (it may have refused: another was registered first). */
  ownsGlobal: boolean;
  shutdown(): Promise<void>;
}

/** What both providers' resources start from: afterstop's schema version. */
const schemaResource = (): Resource => resourceFromAttributes({ [ATTR_AFTERSTOP_SCHEMA_VERSION]: SCHEMA_VERSION });

/** The service name afterstop's config gives, unless OTEL_SERVICE_NAME does (the environment wins). */
const configServiceName = (config: ResolvedConfig, env: Env): string | undefined => (env['OTEL_SERVICE_NAME'] === undefined ? config.serviceName : undefined);

/**
 * The resource the NodeSDK gives afterstop's own: afterstop's schema version, what its default detectors
 * (environment, process, host) find, the service name (provider/resource.ts builds it as the SDK does).
 */
function ownResource(config: ResolvedConfig, env: Env): Resource {
  const detected = schemaResource().merge(detectedResource(env));
  const serviceName = configServiceName(config, env);
  return serviceName === undefined ? detected : detected.merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
}

/** afterstop's own tracer provider (provider/tracer-provider.ts), registered with its context manager and propagators. */
function registerTracesOnly(processor: SpanProcessor, config: ResolvedConfig, env: Env): Registered {
  const provider = new AfterstopTracerProvider({ resource: ownResource(config, env), spanProcessors: [processor, new ForeignToolSpanProcessor()], env });
  provider.register();
  return { ownsGlobal: isRegistered(provider), shutdown: () => provider.shutdown() };
}

/** The NodeSDK's package: an optional peer dependency, loaded only when the environment asks for it (SDK_ONLY_ENV). */
const NODE_SDK_PACKAGE = '@opentelemetry/sdk-node';

/**
 * The NodeSDK, loaded only when the environment asks for what only it does (SDK_ONLY_ENV). Without its
 * package, the tracer provider alone (traces as ever), and stderr says once which variables are not
 * applied and how to install it.
 */
function registerNodeSdk(processor: SpanProcessor, config: ResolvedConfig, env: Env): Registered {
  const peer = loadOptionalPeer<typeof import('@opentelemetry/sdk-node')>(NODE_SDK_PACKAGE);
  if (!('module' in peer)) {
    const asked = SDK_ONLY_ENV.filter((name) => env[name] !== undefined).join(', ');
    say(
      `${asked} ${asked.includes(',') ? 'are' : 'is'} read by the OpenTelemetry NodeSDK, and ${NODE_SDK_PACKAGE} ${peer.problem}: ${installHint(NODE_SDK_PACKAGE)}. ` +
        'Until then traces are recorded without it, and those variables are not applied',
    );
    return registerTracesOnly(processor, config, env);
  }
  const { NodeSDK } = peer.module;
  const serviceName = configServiceName(config, env);
  const sdk = new NodeSDK({
    resource: schemaResource(),
    ...(serviceName === undefined ? {} : { serviceName }),
    spanProcessors: [processor, new ForeignToolSpanProcessor()],
    instrumentations: [],
    // The SDK would otherwise start OTLP metric and log exporters by default;
    // afterstop only asks for traces unless the environment asks for more.
    ...(env['OTEL_METRICS_EXPORTER'] === undefined ? { metricReaders: [] } : {}),
    ...(env['OTEL_LOGS_EXPORTER'] === undefined ? { logRecordProcessors: [] } : {}),
  });
  sdk.start();
  const provider = (sdk as unknown as { _tracerProvider?: unknown })._tracerProvider;
  return { ownsGlobal: isRegistered(provider), shutdown: () => sdk.shutdown() };
}

function ownPipeline(config: ResolvedConfig, env: Env): Pipeline {
  const processor = makeProcessor(config);
  const registered = SDK_ONLY_ENV.some((name) => env[name] !== undefined) ? registerNodeSdk(processor, config, env) : registerTracesOnly(processor, config, env);
  const unhook = hookProcessExit(processor, config.flushTimeoutMs);
  // After start: the MeterProvider the SDK registers for OTEL_METRICS_EXPORTER (if any) is the global one now.
  const unobserve = observeQueue(processor);
  return {
    tracer: trace.getTracer(AFTERSTOP_SCOPE, VERSION),
    config,
    mode: 'own',
    markerProcessor: processor,
    // Every span of a run goes through this queue: a tool call's start marker waits for the next export.
    deferMarker: (marker) => processor.defer(marker),
    withdrawMarker: (entry) => void processor.withdraw(entry),
    flush: (timeoutMs, prompt) => processor.flushSoon(timeoutMs, prompt),
    stats: () => processor.stats(),
    async shutdown() {
      unhook();
      // The SDK's shutdown collects the metrics a last time: the queue's are observed until then.
      await settleWithin(registered.shutdown(), config.exportTimeoutMs);
      unobserve();
      // Unregister the tracer provider the SDK registered (only if it was ours),
      // so that a later setup starts afresh. The context manager and propagator
      // stay: the app may have registered them, and they hold no spans.
      if (registered.ownsGlobal) trace.disable();
    },
  };
}

function joinedPipeline(provider: SdkLikeProvider, config: ResolvedConfig, addOwnExporter: boolean): Pipeline {
  const tracer = trace.getTracer(AFTERSTOP_SCOPE, VERSION);
  const appFlush = (timeoutMs: number): Promise<void> => (typeof provider.forceFlush === 'function' ? settleWithin(provider.forceFlush(), timeoutMs) : Promise.resolve());
  const processor = addOwnExporter ? makeProcessor(config) : undefined;
  const detach = processor ? attachProcessor(provider, processor) : undefined;
  if (processor && !detach) {
    diag.warn('afterstop: the registered tracer provider takes no extra span processor; spans go only to its own exporters');
  }
  const ours = detach ? processor : undefined;
  // The tool calls of frameworks afterstop does not patch, in the app's provider too (foreign-tool-spans.ts).
  const detachForeign = attachProcessor(provider, new ForeignToolSpanProcessor());
  const multi = provider._activeSpanProcessor as SpanProcessor | undefined;
  const unhook = ours ? hookProcessExit(ours, config.flushTimeoutMs) : () => {};
  const unobserve = ours ? observeQueue(ours) : () => {};
  return {
    tracer,
    config,
    mode: 'joined',
    markerProcessor: typeof multi?.onEnd === 'function' && typeof multi.onStart === 'function' ? multi : undefined,
    flush: (timeoutMs, prompt) => (ours ? Promise.all([ours.flushSoon(timeoutMs, prompt), appFlush(timeoutMs)]).then(() => {}) : appFlush(timeoutMs)),
    stats: () => (ours ? ours.stats() : NO_STATS),
    async shutdown() {
      unhook();
      detach?.();
      detachForeign?.();
      await ours?.shutdown();
      unobserve();
    },
  };
}

/**
 * A pipeline that exports nothing itself. With the API's tracer, spans still
 * reach an SDK the app registered (OTEL_SDK_DISABLED, exporter none); with a
 * no-op tracer (`silent`), nothing is recorded at all: what a run falls back
 * to when telemetry cannot start.
 */
export function disabledPipeline(config: ResolvedConfig, silent = false): Pipeline {
  return {
    tracer: silent ? new ProxyTracerProvider().getTracer(AFTERSTOP_SCOPE) : trace.getTracer(AFTERSTOP_SCOPE, VERSION),
    config,
    mode: 'disabled',
    flush: () => Promise.resolve(),
    stats: () => NO_STATS,
    shutdown: () => Promise.resolve(),
  };
}

function createPipeline(config: AfterstopConfig, env: Env): Pipeline {
  const resolved = resolveConfig(config, env);
  if (/^true$/i.test(env['OTEL_SDK_DISABLED'] ?? '')) return disabledPipeline(resolved);
  const existing = registeredSdkProvider();
  if (existing) {
    // The app's SDK already exports to the OTLP endpoint the environment names:
    // adding a second OTLP exporter would send every span twice.
    const addOwn = resolved.exporter !== 'none' && !(resolved.exporter === 'otlp' && resolved.exporterInferred);
    return joinedPipeline(existing, resolved, addOwn);
  }
  if (resolved.exporter === 'none') return disabledPipeline(resolved);
  return ownPipeline(resolved, env);
}

let current: Pipeline | undefined;

/**
 * Set up afterstop's tracing pipeline. Joins an OpenTelemetry SDK the app
 * already registered, or starts one. Calling it again returns the pipeline
 * already set up. Never throws: on failure, spans go to whatever tracer the
 * API has (possibly none) and the app runs on.
 */
export function setupPipeline(config: AfterstopConfig = {}, env: Env = process.env): Pipeline {
  if (current) return current;
  setupGuard(config.guard, env);
  // Trace context on tool requests: on from the first run (or setup, or afterstop/register) unless switched off; off again at shutdown.
  setupTraceContext(config.traceContext, env);
  try {
    current = createPipeline(config, env);
  } catch (error) {
    reportInternalError('setup', error);
    current = disabledPipeline(resolveConfig(config, env));
  }
  return current;
}

/** A pipeline is set up (setup() or the first run made one). */
export const pipelineExists = (): boolean => current !== undefined;

/** The pipeline, set up with defaults on first use. */
export function getPipeline(): Pipeline {
  return current ?? setupPipeline();
}

/** The pipeline shut down last: its counts stay readable after shutdown(). */
let shutDown: Pipeline | undefined;

/**
 * What the pipeline counted: the current one's, else the one shut down last (a process reads them after
 * shutdown() to log what was lost), else zeros. Never sets a pipeline up.
 */
export function pipelineStats(): ExportStats {
  return (current ?? shutDown)?.stats() ?? { ...NO_STATS };
}

/** Flush and stop the pipeline; the next use sets up a new one. */
export async function shutdownPipeline(): Promise<void> {
  const pipeline = current;
  current = undefined;
  stopTraceContext();
  if (pipeline) shutDown = pipeline;
  if (!pipeline) return;
  try {
    await pipeline.shutdown();
  } catch (error) {
    reportInternalError('shutdown', error);
  }
}
