import { ROOT_CONTEXT, TraceFlags, context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '../otel-compat.js';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '../provider/sdk-types.js';
import type { ExportStats } from '../types.js';
import { reportInternalError, settleWithin } from '../safe.js';
import type { DeferredEntry, DeferredMarker } from '../internal-types.js';
import { DeferredMarkers } from './deferred-markers.js';
import { encodeTraceRequestInParts } from './otlp-json-encoder.js';
import { SpanQueue } from './span-queue.js';

export interface QueueOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
}

/**
 * The most spans handed to the exporter at once: a larger batch goes in slices
 * this size, a macrotask apart, so that serialising it never holds the app's
 * event loop for long.
 */
export const EXPORT_SLICE = 64;

/**
 * The first slice a queue hands over is this small: the exporter's code runs cold then (serialising 64
 * spans took 3.5-4.2 ms the first time and 1.1 ms afterwards, and the first request opens its socket in
 * the same macrotask).
 */
export const COLD_SLICE = 8;

/**
 * An export starts once this many spans wait (or the timer fires), however large a batch may be: spans then
 * leave the app's heap soon, and the answers to their requests come back spread out. At 512, each full batch
 * went out as eight requests at once whose answers were handled in one turn of the event loop, and the
 * queued spans were copied by every minor GC: pauses of 5-10 ms at each batch. While an export is out, spans
 * gather, and the next takes up to a whole batch: the throughput to a distant collector is a batch per round trip.
 */
export const EXPORT_AT = EXPORT_SLICE;

/**
 * A slice's request is encoded this many spans a macrotask, for an exporter that takes it encoded
 * (`exportEncoded`): encoding a slice of 64 spans in one went with the request's send into one macrotask,
 * the longest pause an exporting agent loop saw (bench/collector-faults.ts).
 */
export const ENCODE_PART = 16;

/** The next turn of the event loop (a macrotask): what the app has waiting runs first. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `batch` cut in slices: the first `first` spans long, the others {@link EXPORT_SLICE}. */
function slices(batch: ReadableSpan[], first: number): ReadableSpan[][] {
  const out = [batch.slice(0, first)];
  for (let at = first; at < batch.length; at += EXPORT_SLICE) out.push(batch.slice(at, at + EXPORT_SLICE));
  return out;
}

/** An exporter that can also write synchronously, for the last flush at process exit. */
export interface SyncCapableExporter extends SpanExporter {
  exportSync?(spans: ReadableSpan[]): boolean;
  /** Write synchronously whatever the exporter still holds (lines waiting for the disk). */
  drainSync?(): void;
  /**
   * The exporter takes an export while another runs, and bounds what it holds itself (the file exporter
   * queues lines up to its pending-bytes limit): a full queue then hands it a batch at once instead of
   * dropping spans ({@link BoundedBatchSpanProcessor}).
   */
  readonly acceptsConcurrentExports?: boolean;
  /** The most exports (requests) the exporter takes at once; beyond it, it refuses them (the OTLP client). */
  readonly maxConcurrentExports?: number;
  /**
   * Export spans whose request the queue encoded beforehand (their OTLP/JSON as the pieces
   * encodeTraceRequestInParts returns, made {@link ENCODE_PART} spans a macrotask): the export then only writes
   * them as bytes (`utf8`) and sends or writes those. Without it, the exporter serialises a slice inside
   * export(), in one macrotask.
   */
  exportEncoded?(spans: ReadableSpan[], request: readonly string[], resultCallback: (result: ExportResult) => void): void;
  /** Whether a batch handed now would be taken (false: the exporter holds its limit already; the queue keeps it). */
  hasRoom?(): boolean;
  /**
   * Set by the queue: the exporter calls it when an export failed and it tries again later (the collector
   * refused it, or answered 5xx): the collector is failing, and a flush for a Stop stops waiting for it.
   */
  onRetrying?: (() => void) | undefined;
}

/** How much earlier than asked a flush may end when it joins one under way. */
const FLUSH_JOIN_MS = 100;

interface OpenFlush {
  deadline: number;
  /** Still taking spans: false once its last check found the queue empty (or time up). */
  draining: boolean;
  /** A flush for a Stop: it settles when the collector is found failing. */
  prompt: boolean;
  promise: Promise<void>;
}

/**
 * A batch span processor with bounded memory that counts what it drops.
 *
 * - At most `maxQueueSize` spans wait; beyond it the oldest are dropped and counted, other spans before
 *   afterstop's markers ({@link SpanQueue}).
 * - One export runs at a time; a failed or timed-out export counts its spans as dropped
 *   (the OTLP exporter retries transient failures itself before it reports one).
 * - Its timer never keeps the process alive.
 * - `flushSoon` exports what is queued now, bounded by a timeout: used right after
 *   a cancel request or a ghost commit, so that the evidence reaches the exporter.
 */
export class BoundedBatchSpanProcessor implements SpanProcessor {
  private readonly ring: SpanQueue;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private exporting: Promise<void> | undefined;
  private isShutdown = false;
  /** The process is exiting and its last flush is over: nothing more is sent (what is left stays queued). */
  private exiting = false;
  /**
   * The last export failed: the drain under way stops there, and waits for the next scheduled try (or a
   * flush someone asks for), instead of sending batch after batch to a collector that is down (its
   * client's retry timers would hold the process for each).
   */
  private lastFailed = false;
  /**
   * The collector is failing: an export was refused and is being retried, failed, or was still unanswered
   * when a flush's time ran out; cleared by the next export that succeeds. A flush for a Stop
   * (`flushSoon(…, true)`) does not wait for it: `await run.cancel()` never waits on a collector in trouble.
   */
  private stalled = false;
  private readonly stallWaiters = new Set<() => void>();
  /** The flush under way that later ones may join (flushSoon). */
  private openFlush: OpenFlush | undefined;
  /** A batch taken from the ring and waiting for resource attributes before export. */
  private readonly handing = new Set<ReadableSpan[]>();
  /** Markers written only if their fact is still open when spans are next taken for export. */
  private readonly deferred = new DeferredMarkers();
  private readonly counters = { exported: 0, dropped: 0, failedExports: 0 };
  /** Of `dropped`, the spans the full queue evicted (the rest were in failed exports), and those of exports that timed out. */
  private queueFull = 0;
  private timedOut = 0;
  /** Spans handed to the exporter (whatever came of it), and spans that ended after shutdown (not taken). */
  private handed = 0;
  private afterShutdown = 0;
  /** Batches being exported (the drain's, and those a full queue handed over). */
  private batchesOut = 0;

  private readonly options: QueueOptions;
  /** Spans waiting that start an export ({@link EXPORT_AT}, or the batch size when smaller). */
  private readonly exportAt: number;

  constructor(
    private readonly exporter: SyncCapableExporter,
    options: QueueOptions,
  ) {
    const maxQueueSize = Math.max(1, Math.floor(options.maxQueueSize) || 1);
    // A batch larger than the queue would never fill: the queue would overflow first.
    const maxExportBatchSize = Math.min(maxQueueSize, Math.max(1, Math.floor(options.maxExportBatchSize) || 1));
    this.options = { ...options, maxQueueSize, maxExportBatchSize };
    this.exportAt = Math.min(EXPORT_AT, maxExportBatchSize);
    this.ring = new SpanQueue(maxQueueSize);
    this.exporter.onRetrying = () => this.stall();
  }

  /** Whether the last export failed, or the collector is failing (refused, retried, unanswered past a flush), and no export has succeeded since. */
  collectorFailing(): boolean {
    return this.lastFailed || this.stalled;
  }

  /** The collector is failing: flushes for a Stop that wait for it settle now. */
  private stall(): void {
    this.stalled = true;
    for (const wake of this.stallWaiters) wake();
    this.stallWaiters.clear();
  }

  stats(): ExportStats {
    return { queued: this.waiting(), ...this.counters };
  }

  /**
   * Write `marker` when spans are next taken for export, unless it is withdrawn first (deferred-markers.ts).
   * Undefined once the queue is shut down: the caller writes it now.
   */
  defer(marker: DeferredMarker): DeferredEntry | undefined {
    if (this.isShutdown || this.exiting) return undefined;
    const entry = this.deferred.add(marker);
    this.arm();
    return entry;
  }

  /** The deferred marker's fact closed: true when it was never written (it never will be). */
  withdraw(entry: DeferredEntry): boolean {
    return this.deferred.withdraw(entry);
  }

  /** Spans queued, and deferred markers that the next export writes. */
  private waiting(): number {
    return this.ring.length + this.deferred.size;
  }

  /**
   * The next batch: the deferred markers written into the queue first, so that an open fact goes out with it.
   * Empty when only deferred markers waited and none was written (an unsampled run's): nothing to export.
   */
  private takeBatch(): ReadableSpan[] {
    this.deferred.writeAll();
    return this.ring.take(this.options.maxExportBatchSize);
  }

  /** What the self-metrics report: the stats, the queue's capacity, the spans handed to the exporter, and the drops by cause. */
  detail(): ExportStats & { capacity: number; handed: number; queueFull: number; timedOut: number; afterShutdown: number } {
    return { ...this.stats(), capacity: this.ring.capacity, handed: this.handed, queueFull: this.queueFull, timedOut: this.timedOut, afterShutdown: this.afterShutdown };
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.isShutdown) {
      this.afterShutdown++;
      return;
    }
    // A burst (thousands of Stops at once) fills the queue before any export can run: an exporter that
    // bounds what it holds itself, and keeps up, is handed the oldest batch of the shared lanes now (markers
    // first), rather than spans dropped; the Stop markers wait in their reserve (span-queue.ts). This is the
    // one case where a batch is serialised inside span.end(): bounded to one slice per full queue.
    if (this.ring.full && this.canHandOff()) {
      void this.exportBatch(this.ring.takeShared(this.options.maxExportBatchSize));
    }
    if (this.ring.push(span)) {
      this.counters.dropped++;
      this.queueFull++;
    }
    if (this.ring.length >= this.exportAt) this.kick();
    else this.arm();
  }

  /**
   * Whether a full queue may hand the exporter a batch now: it takes exports while others run, is not failing, has room,
   * and takes as many at once as the batches out (and this one, and one of the drain's) may be sliced in.
   */
  private canHandOff(): boolean {
    // Not to a collector in trouble: its requests would only wait there for their timeout.
    if (this.exporter.acceptsConcurrentExports !== true || this.collectorFailing() || this.exporter.hasRoom?.() === false) return false;
    const max = this.exporter.maxConcurrentExports;
    const slicesPerBatch = Math.ceil(this.options.maxExportBatchSize / EXPORT_SLICE) + 1;
    return max === undefined || (this.batchesOut + 2) * slicesPerBatch <= max;
  }

  /**
   * The last flush before the process exits: exports what is queued for at most `timeoutMs`, then sends
   * nothing more, so that a collector that is down or hangs cannot hold the exit batch after batch.
   */
  async flushAtExit(timeoutMs: number): Promise<void> {
    await this.flushSoon(timeoutMs);
    this.exiting = true;
    this.disarm();
  }

  /**
   * Export everything queued now; resolves when done or after `timeoutMs`. Never rejects. Someone waits
   * for it (`await run.cancel()`, the exit flush): while it runs, one timer keeps the process alive, for at
   * most `timeoutMs`, whatever the exporter's sockets do, and that timer is the one that settles it (two
   * timers, one holding and one settling, raced: the holding one fired first, the loop emptied, and an
   * `await run.cancel()` at top level never settled: exit 13).
   * `prompt` (a flush for a Stop): settles at once while the collector is failing, and as soon as it is
   * found failing (refused, retried, unanswered past this flush's time).
   */
  flushSoon(timeoutMs: number, prompt = false): Promise<void> {
    if (prompt && this.collectorFailing()) {
      this.arm();
      return Promise.resolve();
    }
    const deadline = Date.now() + timeoutMs;
    // Flushes asked for together share one (a burst of Stops against a hung collector held two timers and
    // a promise chain per cancel until the export timed out: 88 MB at 100,000): joined while the shared one
    // is still draining (it then takes what was queued since) and ends no more than FLUSH_JOIN_MS earlier.
    const open = this.openFlush;
    if (open !== undefined && open.draining && open.deadline >= deadline - FLUSH_JOIN_MS && open.prompt === prompt) return open.promise;
    const flush: OpenFlush = { deadline, draining: true, prompt, promise: Promise.resolve() };
    const loop = async (): Promise<void> => {
      for (;;) {
        await this.drain(deadline);
        // Checked and closed in one step: a span queued before this is drained, one after it gets a new flush.
        if (this.waiting() === 0 || this.exiting || Date.now() >= deadline) {
          flush.draining = false;
          return;
        }
      }
    };
    flush.promise = new Promise<void>((resolve) => {
      let wake: (() => void) | undefined;
      const done = (): void => {
        flush.draining = false;
        clearTimeout(hold);
        if (wake !== undefined) this.stallWaiters.delete(wake);
        if (this.openFlush === flush) this.openFlush = undefined;
        resolve();
      };
      const hold = setTimeout(() => {
        // Time up with an export still unanswered: the collector hangs.
        if (this.exporting !== undefined) this.stall();
        done();
      }, timeoutMs);
      if (prompt) {
        wake = done;
        this.stallWaiters.add(wake);
      }
      loop().then(done, (error: unknown) => {
        reportInternalError('flush', error);
        done();
      });
    });
    this.openFlush = flush;
    return flush.promise;
  }

  forceFlush(): Promise<void> {
    return this.flushSoon(this.options.exportTimeoutMs);
  }

  async shutdown(): Promise<void> {
    if (this.isShutdown) return;
    await this.forceFlush();
    this.isShutdown = true;
    this.disarm();
    this.cancelImmediate();
    // The exporter's shutdown waits for its exports: bounded, and holding the process while it waits
    // (the OTLP exporter's sockets do not), so that `await shutdown()` always settles.
    const hold = setTimeout(() => {}, this.options.exportTimeoutMs);
    try {
      await settleWithin(
        this.exporter.shutdown().catch((error: unknown) => reportInternalError('exporter shutdown', error)),
        this.options.exportTimeoutMs,
      );
    } finally {
      clearTimeout(hold);
    }
  }

  /**
   * Last resort at process exit: hand what is still queued to the exporter
   * synchronously, when it can write that way (the file exporter can).
   */
  flushSync(): void {
    try {
      // First what an export already handed over (a cancel flush just before exit).
      this.exporter.drainSync?.();
    } catch (error) {
      reportInternalError('export at exit', error);
    }
    if (!this.exporter.exportSync) return;
    const batches: ReadableSpan[][] = [...this.handing];
    this.handing.clear();
    for (let batch = this.takeBatch(); batch.length > 0; batch = this.takeBatch()) batches.push(batch);
    for (const batch of batches) {
      let written = false;
      this.handed += batch.length;
      try {
        written = this.exporter.exportSync(batch);
      } catch (error) {
        reportInternalError('export at exit', error);
      }
      if (written) this.counters.exported += batch.length;
      else {
        this.counters.dropped += batch.length;
        this.counters.failedExports++;
      }
    }
  }

  /**
   * An export within `scheduledDelayMs`: unless one is under way or kicked already (each, when it is over, arms again
   * while spans wait). A tool call defers its start marker, which arms: with an export kicked, that was a timer
   * made and cleared on every call until the export ran (4 % of a tool call's time).
   */
  private arm(): void {
    if (this.timer !== undefined || this.exporting !== undefined || this.immediate !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.options.scheduledDelayMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private cancelImmediate(): void {
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  /**
   * Start an export soon, never on the caller's stack: `onEnd` runs inside the
   * app's `span.end()`, and serialising a batch there would block the app.
   */
  private kick(): void {
    this.disarm();
    if (this.exporting !== undefined || this.immediate !== undefined) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      if (this.exporting === undefined) void this.drain();
    });
    this.immediate.unref();
  }

  /**
   * Export batches; one drain at a time. A flush someone waits for goes on until the queue is empty or its
   * `deadline` (ms since the epoch); a drain of the timer's goes on while full batches wait, and stops at a
   * failed export, and the next scheduled try goes on from there.
   */
  private drain(deadline?: number): Promise<void> {
    // A drain of the timer's (or of spans enough, EXPORT_AT) sends what waits, then goes on only while
    // enough wait again: the rest goes at the next tick or when enough gather (a busy app sent a request of
    // one to three spans after every batch). A flush sends everything.
    // `sent`: this drain has sent a batch already.
    const goOn = (sent: boolean): boolean => {
      if (this.waiting() === 0 || this.exiting) return false;
      if (deadline !== undefined) return Date.now() < deadline;
      return !this.lastFailed && (!sent || this.ring.length >= this.exportAt);
    };
    if (this.exporting !== undefined) {
      // Wait for the drain under way, then drain whatever arrived meanwhile.
      return this.exporting.then(() => (goOn(false) ? this.drain(deadline) : undefined));
    }
    this.lastFailed = false;
    const run = (async () => {
      for (let sent = false; goOn(sent); sent = true) {
        // An exporter at its limit (lines waiting for the disk, requests in flight, after a burst handed it
        // batches) would refuse the batch: wait for it instead, bounded by the export timeout.
        if (this.exporter.hasRoom?.() === false) {
          await settleWithin(this.exporter.forceFlush?.() ?? Promise.resolve(), this.options.exportTimeoutMs);
          if (!goOn(false)) break;
        }
        const batch = this.takeBatch();
        if (batch.length === 0) break;
        await this.exportBatch(batch);
      }
    })();
    this.exporting = run.finally(() => {
      this.exporting = undefined;
      if (this.waiting() > 0 && !this.isShutdown) this.arm();
    });
    return this.exporting;
  }

  private async exportBatch(batch: ReadableSpan[]): Promise<void> {
    this.batchesOut++;
    try {
      await this.exportSlices(batch);
    } finally {
      this.batchesOut--;
    }
  }

  private async exportSlices(batch: ReadableSpan[]): Promise<void> {
    // Resource detectors may still be filling in attributes (host.id...): wait
    // for them, as the SDK's batch processor does, so every line carries them.
    // Once per resource, not per span: a batch's spans share one or two, and 512 waits on the same
    // resource held the loop 9-11 ms at the first export (bench/collector-faults.ts).
    const pending = new Set<ReadableSpan['resource']>();
    for (const span of batch) if (span.resource.asyncAttributesPending) pending.add(span.resource);
    if (pending.size > 0) {
      // Out of the ring, not yet with the exporter: flushSync must still see it. (A set: a burst hands
      // batches while others still wait.)
      this.handing.add(batch);
      await Promise.all([...pending].map((resource) => resource.waitForAsyncAttributes?.())).catch((error: unknown) => reportInternalError('resource attributes', error));
      // The wait's continuations and the first slice's serialising, each in its own macrotask.
      await nextTurn();
      if (!this.handing.delete(batch)) return; // written at exit meanwhile
    }
    // Handed in slices, a macrotask apart: serialising a whole batch at once held the app's event loop
    // 23 ms (512 spans, the first export). The slices still waiting stay where flushSync sees them.
    // (The first slice of all is small: the exporter's code is still cold.)
    const all = slices(batch, this.handed === 0 ? COLD_SLICE : EXPORT_SLICE);
    // An exporter that takes a request encoded has each slice encoded a part per macrotask, and handed over in
    // one of its own; any other is handed a slice a macrotask, the first at once.
    const encodes = this.exporter.exportEncoded !== undefined;
    for (const slice of all) this.handing.add(slice);
    const sent: Promise<boolean>[] = [];
    for (const [i, slice] of all.entries()) {
      const request = encodes ? await this.encodeInTurns(slice) : undefined;
      if (encodes || i > 0) await nextTurn();
      if (this.handing.delete(slice)) sent.push(this.exportSlice(slice, request));
    }
    this.lastFailed = (await Promise.all(sent)).some((ok) => !ok);
  }

  /**
   * The slice's OTLP/JSON (its pieces), {@link ENCODE_PART} spans a macrotask; undefined if the encoder threw
   * (reported: the exporter then serialises the slice itself).
   */
  private async encodeInTurns(slice: ReadableSpan[]): Promise<readonly string[] | undefined> {
    try {
      const parts = encodeTraceRequestInParts(slice, ENCODE_PART);
      for (;;) {
        const next = parts.next();
        if (next.done === true) return next.value;
        await nextTurn();
      }
    } catch (error) {
      reportInternalError('export encoding', error);
      return undefined;
    }
  }

  /**
   * Hand one slice of a batch to the exporter, as the `request` (its OTLP/JSON's pieces) when it was encoded
   * beforehand; resolves (never rejects) with whether it was exported.
   */
  private exportSlice(batch: ReadableSpan[], request?: readonly string[]): Promise<boolean> {
    const { settled, finish } = this.exportOutcome(batch.length);
    this.handed += batch.length;
    const { exporter } = this;
    try {
      // Out of the app's context: an export started from a tool body (a flush after its commit) is not the
      // tool's HTTP request (the commit detector and the guard's fence look for the tool in the context).
      context.with(suppressTracing(ROOT_CONTEXT), () => (request !== undefined && exporter.exportEncoded !== undefined ? exporter.exportEncoded(batch, request, finish) : exporter.export(batch, finish)));
    } catch (error) {
      finish({ code: ExportResultCode.FAILED, error: error as Error });
    }
    return settled;
  }

  /**
   * What becomes of an export of `count` spans: `finish` (the exporter's callback, or the timeout's) counts
   * it once, and `settled` resolves with whether it succeeded. Made apart from the spans: the callback,
   * held until the collector answers, does not hold them (they would outlive minor GCs, each copying them,
   * and be promoted: longer pauses for the app).
   */
  private exportOutcome(count: number): { settled: Promise<boolean>; finish: (result: ExportResult, timeout?: boolean) => void } {
    let resolve: (ok: boolean) => void = () => {};
    const settled = new Promise<boolean>((r) => (resolve = r));
    let done = false;
    const finish = (result: ExportResult, timeout = false): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (result.code === ExportResultCode.SUCCESS) {
        this.counters.exported += count;
        this.stalled = false;
      } else {
        this.counters.dropped += count;
        this.counters.failedExports++;
        if (timeout) this.timedOut += count;
        this.stall();
        if (result.error) reportInternalError('export', result.error);
      }
      resolve(result.code === ExportResultCode.SUCCESS);
    };
    const timer = setTimeout(() => finish({ code: ExportResultCode.FAILED, error: new Error('export timed out') }, true), this.options.exportTimeoutMs);
    timer.unref();
    return { settled, finish };
  }
}
