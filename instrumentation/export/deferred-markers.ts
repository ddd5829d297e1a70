import { reportInternalError } from '../safe.js';

/**
 * A marker whose fact matters only while it is still open: a tool call's start
 * marker tells of a call that may never end (the process dies, the body hangs).
 * A call that ends before the spans are next exported is told of by its own
 * span, which carries the same start; its marker is never written.
 */
export interface DeferredMarker {
  /** Write the marker now, with the time of the fact it records. */
  writeDeferred(): void;
}

/**
 * The deferred markers of one export queue. Each waits until the queue next
 * takes spans to export (its timer, a flush, the write at exit), is written
 * then, once, or is withdrawn when its fact closes first. Bounded by what is
 * open in the app (its tool calls in flight), never by the exporter's health:
 * an export that fails still writes them into the queue.
 */
export class DeferredMarkers {
  private readonly waiting = new Set<DeferredMarker>();

  get size(): number {
    return this.waiting.size;
  }

  add(marker: DeferredMarker): void {
    this.waiting.add(marker);
  }

  /** The fact closed: true when its marker was still waiting (it is never written), false when it was written. */
  withdraw(marker: DeferredMarker): boolean {
    return this.waiting.delete(marker);
  }

  /** Write every waiting marker, each once. Never throws. */
  writeAll(): void {
    if (this.waiting.size === 0) return;
    const markers = [...this.waiting];
    this.waiting.clear();
    for (const marker of markers) {
      try {
        marker.writeDeferred();
      } catch (error) {
        reportInternalError('deferred marker', error);
      }
    }
  }
}
