import { reportInternalError } from '../safe.js';
import type { DeferredEntry, DeferredMarker } from '../internal-types.js';

/** Entries kept before withdrawn ones are swept out (when they are most of the list). */
const SWEEP_AT = 1024;

/**
 * The deferred markers of one export queue. Each waits until the queue next
 * takes spans to export (its timer, a flush, the write at exit), is written
 * then, once, or is withdrawn when its fact closes first. Bounded by what is
 * open in the app (its tool calls in flight), never by the exporter's health:
 * an export that fails still writes them into the queue.
 *
 * A list of entries, not a set of markers: a tool call defers its marker and
 * withdraws it on every call, and a set's add and delete (and the rehashing
 * they cause) cost more than the rest of the call's bookkeeping. A withdrawn
 * entry lets go of its marker at once; the list is swept when withdrawn
 * entries are most of it, so it stays within twice what is open (and
 * {@link SWEEP_AT}).
 */
export class DeferredMarkers {
  private entries: DeferredEntry[] = [];
  private open = 0;

  get size(): number {
    return this.open;
  }

  add(marker: DeferredMarker): DeferredEntry {
    const entry: DeferredEntry = { marker };
    if (this.entries.length >= SWEEP_AT && this.entries.length >= 2 * this.open) {
      this.entries = this.entries.filter((e) => e.marker !== undefined);
    }
    this.entries.push(entry);
    this.open++;
    return entry;
  }

  /** The fact closed: true when its marker was still waiting (it is never written), false when it was written. */
  withdraw(entry: DeferredEntry): boolean {
    if (entry.marker === undefined) return false;
    entry.marker = undefined;
    this.open--;
    // The last one added (calls one after another): out of the list at once, which then never grows.
    if (this.entries[this.entries.length - 1] === entry) this.entries.pop();
    return true;
  }

  /** Write every waiting marker, each once. Never throws. */
  writeAll(): void {
    const entries = this.entries;
    this.entries = [];
    if (this.open === 0) return;
    this.open = 0;
    for (const entry of entries) {
      const marker = entry.marker;
      if (marker === undefined) continue;
      entry.marker = undefined;
      try {
        marker.writeDeferred();
      } catch (error) {
        reportInternalError('deferred marker', error);
      }
    }
  }
}
