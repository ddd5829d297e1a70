import { ExportResultCode, type ExportResult } from '../otel-compat.js';
import { reportInternalError } from '../safe.js';

/**
 * What became of the spans the queue took, each counted once (exported, or dropped and why), and whether
 * the collector is failing.
 */
export class ExportLedger {
  readonly counters = { exported: 0, dropped: 0, failedExports: 0 };
  /** Of `dropped`, the spans the full queue evicted (the rest were in failed exports), and those of exports that timed out. */
  queueFull = 0;
  timedOut = 0;
  /** Spans handed to the exporter (whatever came of it), and spans that ended after shutdown (not taken). */
  handed = 0;
  afterShutdown = 0;
  /**
   * The collector is failing: an export was refused and is being retried, failed, or was still unanswered
   * when a flush's time ran out; cleared by the next export that succeeds. A flush for a Stop
   * (`flushSoon(…, true)`) does not wait for it: `await run.cancel()` never waits on a collector in trouble.
   */
  stalled = false;
  private readonly stallWaiters = new Set<() => void>();

  constructor(private readonly exportTimeoutMs: number) {}

  /** The collector is failing: flushes for a Stop that wait for it settle now. */
  stall(): void {
    this.stalled = true;
    for (const wake of this.stallWaiters) wake();
    this.stallWaiters.clear();
  }

  /** Call `wake` at the next stall (once); the function returned forgets it. */
  onStall(wake: () => void): () => void {
    this.stallWaiters.add(wake);
    return () => this.stallWaiters.delete(wake);
  }

  /** `count` spans handed to the exporter and written straight away (at exit): exported or dropped. */
  written(count: number, ok: boolean): void {
    this.handed += count;
    this.tally(count, ok);
  }

  private tally(count: number, ok: boolean): void {
    if (ok) this.counters.exported += count;
    else {
      this.counters.dropped += count;
      this.counters.failedExports++;
    }
  }

  /**
   * `count` spans handed to the exporter, and what becomes of their export: `finish` (the exporter's
   * callback, or the timeout's) counts it once, and `settled` resolves with whether it succeeded. Made apart
   * from the spans: the callback,
   * held until the collector answers, does not hold them (they would outlive minor GCs, each copying them,
   * and be promoted: longer pauses for the app).
   */
  outcome(count: number): { settled: Promise<boolean>; finish: (result: ExportResult, timeout?: boolean) => void } {
    this.handed += count;
    let resolve: (ok: boolean) => void = () => {};
    const settled = new Promise<boolean>((r) => (resolve = r));
    let done = false;
    const finish = (result: ExportResult, timeout = false): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ok = result.code === ExportResultCode.SUCCESS;
      this.tally(count, ok);
      if (ok) this.stalled = false;
      else {
        if (timeout) this.timedOut += count;
        this.stall();
        if (result.error) reportInternalError('export', result.error);
      }
      resolve(ok);
    };
    const timer = setTimeout(() => finish({ code: ExportResultCode.FAILED, error: new Error('export timed out') }, true), this.exportTimeoutMs);
    timer.unref();
    return { settled, finish };
  }
}
