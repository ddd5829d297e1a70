import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '../provider/sdk-types.js';
import type { ExportStats } from '../types.js';
import { reportInternalError, settleWithin } from '../safe.js';
import type { DeferredEntry, DeferredMarker } from '../internal-types.js';
import { DeferredMarkers } from './deferred-markers.js';
import { ExportLedger } from './export-ledger.js';
import { EXPORT_SLICE, handInSlices, nextTurn, type SliceHost } from './slices.js';
import { SpanQueue } from './span-queue.js';
import type { SyncCapableExporter } from './sync-capable-exporter.js';

export interface QueueOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
}

/**
 * An export starts once this many spans wait (or the timer fires), however large a batch may be: spans then
 * leave the app's heap soon, and the answers to their requests come back spread out. At 512, each full batch
 * went out as eight requests at once whose answers were handled in one turn of the event loop, and the
 * queued spans were copied by every minor GC: pauses of 5-10 ms at each batch. While an export is out, spans
 * gather, and the next takes up to a whole batch: the throughput to a distant collector is a batch per round trip.
 */
export const EXPORT_AT = EXPORT_SLICE;

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
  /** The flush under way that later ones may join (flushSoon). */
  private openFlush: OpenFlush | undefined;
  /** A batch taken from the ring and waiting for resource attributes before export, and slices not yet handed over. */
  private readonly handing = new Set<ReadableSpan[]>();
  /** Markers written only if their fact is still open when spans are next taken for export. */
  private readonly deferred = new DeferredMarkers();
  /** What became of the spans taken, and whether the collector is failing. */
  private readonly ledger: ExportLedger;
  /** What handing a batch in slices needs (slices.ts). */
  private readonly host: SliceHost;
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
    this.ledger = new ExportLedger(options.exportTimeoutMs);
    this.host = { exporter, ledger: this.ledger, handing: this.handing };
    this.exporter.onRetrying = () => this.ledger.stall();
  }

  /** Whether the last export failed, or the collector is failing (refused, retried, unanswered past a flush), and no export has succeeded since. */
  collectorFailing(): boolean {
    return this.lastFailed || this.ledger.stalled;
  }

  stats(): ExportStats {
    return { queued: this.waiting(), ...this.ledger.counters };
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
    const { handed, queueFull, timedOut, afterShutdown } = this.ledger;
    return { ...this.stats(), capacity: this.ring.capacity, handed, queueFull, timedOut, afterShutdown };
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.isShutdown) {
      this.ledger.afterShutdown++;
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
      this.ledger.counters.dropped++;
      this.ledger.queueFull++;
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
      let forget: (() => void) | undefined;
      const done = (): void => {
        flush.draining = false;
        clearTimeout(hold);
        forget?.();
        if (this.openFlush === flush) this.openFlush = undefined;
        resolve();
      };
      const hold = setTimeout(() => {
        // Time up with an export still unanswered: the collector hangs.
        if (this.exporting !== undefined) this.ledger.stall();
        done();
      }, timeoutMs);
      if (prompt) forget = this.ledger.onStall(done);
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
      try {
        written = this.exporter.exportSync(batch);
      } catch (error) {
        reportInternalError('export at exit', error);
      }
      this.ledger.written(batch.length, written);
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
    this.lastFailed = !(await handInSlices(this.host, batch));
  }
}
