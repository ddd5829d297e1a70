/** Private state shapes; not part of the public API. */
import type { Attributes, Context, HrTime, Tracer } from '@opentelemetry/api';
import type { SpanProcessor } from './provider/sdk-types.js';
import type { CancelState, ExportStats, ExporterKind } from './types.js';

/**
 * A marker whose fact matters only while it is still open: a tool call's start
 * marker tells of a call that may never end (the process dies, the body hangs).
 * A call that ends before the spans are next exported is told of by its own
 * span, which carries the same start; its marker is never written. The
 * export queue keeps them (export/deferred-markers.ts).
 */
export interface DeferredMarker {
  /** Write the marker now, with the time of the fact it records. */
  writeDeferred(): void;
}

/** A marker deferred to the next export: what its owner hands back to withdraw it. */
export interface DeferredEntry {
  /** Undefined once written or withdrawn. */
  marker: DeferredMarker | undefined;
}

export interface ResolvedConfig {
  serviceName: string | undefined;
  exporter: ExporterKind;
  tracesDir: string;
  maxFileBytes: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
  flushTimeoutMs: number;
  settleDeadlineMs: number | false;
  processGraceMs: number;
}

/** How afterstop's spans reach an exporter. */
export interface Pipeline {
  readonly tracer: Tracer;
  readonly config: ResolvedConfig;
  /**
   * `own`: afterstop started the OpenTelemetry SDK; `joined`: it added its
   * processor to (or relies on) the SDK the app had already started;
   * `disabled`: OTEL_SDK_DISABLED or exporter `none`.
   */
  readonly mode: 'own' | 'joined' | 'disabled';
  /** Where marker spans can be handed directly (see markers.ts); undefined: through the tracer. */
  readonly markerProcessor?: SpanProcessor | undefined;
  /**
   * Write `marker` only if its fact is still open when spans are next exported (deferred-markers.ts):
   * only afterstop's own queue, which takes every span of the run, can; undefined (or absent): write it now.
   * What it returns is handed to `withdrawMarker`.
   */
  deferMarker?(marker: DeferredMarker): DeferredEntry | undefined;
  /** The deferred marker's fact closed: it is never written if it was still waiting. */
  withdrawMarker?(entry: DeferredEntry): void;
  /**
   * Export what is queued now; bounded by `timeoutMs`; never rejects. `prompt` (a flush for the evidence,
   * `run.cancel()`'s): settles at once while the collector is failing, or as soon as it is found so.
   */
  flush(timeoutMs: number, prompt?: boolean): Promise<void>;
  stats(): ExportStats;
  shutdown(): Promise<void>;
}

/** What a run shares with the tool calls, model calls and markers it owns. */
export interface RunScope {
  readonly tracer: Tracer;
  /** A context whose active span is the run span. */
  readonly context: Context;
  /** `afterstop.run.id`, conversation, agent and framework: on every span of the run. */
  readonly common: Attributes;
  readonly signal: AbortSignal;
  readonly cancelState: CancelState;
  /** Unique to this run (random, made when first asked): the guard's key scope when the conversation cannot be one. */
  readonly keyScope: string;
  /** The tool call whose body started this run (a sub-agent) belongs to a stopped run, up the chain: the fence holds this run's tools too. */
  parentStopped(): boolean;
  /** The abort reason of that stopped ancestor. */
  parentAbortReason(): unknown;
  /** When the cancel was acknowledged (its marker's time), once it was. */
  readonly ackTime: HrTime | undefined;
  readonly flushTimeoutMs: number;
  /**
   * Write a marker span (start = end = `time`, by default now) under `parent` (default: the run
   * span). `attributes` is kept as given: pass a fresh object, never touch it after.
   */
  marker(name: string, attributes: Attributes, parent?: Context, time?: HrTime): void;
  /** Defer `marker` to the next export (Pipeline.deferMarker); undefined: the caller writes it now. */
  deferMarker(marker: DeferredMarker): DeferredEntry | undefined;
  withdrawMarker(entry: DeferredEntry): void;
  /** Flush the pipeline now (bounded); used for evidence that must survive a crash. */
  flushEvidence(): Promise<void>;
  /** A tool or model call started: its start number, which it hands back, once, when it ends. */
  childStarted(kind: 'tool' | 'model'): number;
  childEnded(kind: 'tool' | 'model', started: number): void;
}
