import type { ReadableSpan } from '../provider/sdk-types.js';
import { AFTERSTOP_SCOPE, ATTR_TOOL_EFFECT, SPAN_CANCEL_REQUEST } from '../semconv.js';

/**
 * Stop markers (`afterstop.cancel.request`) the queue holds beyond its capacity: a burst of Stops (thousands
 * of runs cancelled in the same tick, before any export can run) keeps every one of them. Bounded: at about
 * 1.5 KB a marker, 16,384 of them are some 25 MB at the very worst.
 */
const STOP_RESERVE = 16_384;

/** A fixed-capacity ring of spans. When full, pushing evicts the oldest span. */
class SpanRing {
  private readonly items: (ReadableSpan | undefined)[];
  private head = 0;
  length = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<ReadableSpan | undefined>(capacity);
  }

  /** Returns true when a span had to be evicted. */
  push(span: ReadableSpan): boolean {
    const tail = (this.head + this.length) % this.capacity;
    this.items[tail] = span;
    if (this.length < this.capacity) {
      this.length++;
      return false;
    }
    this.head = (this.head + 1) % this.capacity;
    return true;
  }

  take(max: number): ReadableSpan[] {
    const n = Math.min(max, this.length);
    const out = new Array<ReadableSpan>(n);
    for (let i = 0; i < n; i++) {
      out[i] = this.items[this.head] as ReadableSpan;
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
    }
    this.length -= n;
    return out;
  }
}

/** The Stop marker: the evidence every figure hangs on (a run without it is not cancelled at all). */
export const isStop = (span: ReadableSpan): boolean => span.name === SPAN_CANCEL_REQUEST && span.instrumentationScope.name === AFTERSTOP_SCOPE;

/**
 * afterstop's markers (cancel ack, tool start and commit, repair, settle...): the product's evidence; and
 * afterstop's tool spans, which stand for their start markers when those were never written (a call that
 * ended before the next export: deferred-markers.ts).
 */
const isEvidence = (span: ReadableSpan): boolean => span.name.startsWith('afterstop.') || (span.attributes[ATTR_TOOL_EFFECT] !== undefined && span.instrumentationScope.name === AFTERSTOP_SCOPE);

/**
 * The queue, in three lanes evicted in this order: other spans, then afterstop's other markers, then Stop
 * markers last.
 * - Stop markers have a lane of their own, `stopReserve` of them beyond `capacity`: a burst of Stops never
 *   evicts one (nor do other spans). Past the reserve a Stop marker joins the markers' lane.
 * - The other spans and markers share `capacity`. When it is full, the oldest other span is evicted first;
 *   a marker is evicted only when nothing but markers waits (then the oldest), and a new other span is the
 *   one dropped.
 * Taken Stop markers first, then markers, then other spans.
 */
export class SpanQueue {
  private readonly stops: SpanRing;
  private readonly evidence: SpanRing;
  private readonly other: SpanRing;

  constructor(
    readonly capacity: number,
    readonly stopReserve = STOP_RESERVE,
  ) {
    this.stops = new SpanRing(Math.max(1, stopReserve));
    this.evidence = new SpanRing(capacity);
    this.other = new SpanRing(capacity);
  }

  /** Every span waiting. */
  get length(): number {
    return this.stops.length + this.evidence.length + this.other.length;
  }

  /** The shared lanes are full: the next marker or other span evicts one. */
  get full(): boolean {
    return this.evidence.length + this.other.length >= this.capacity;
  }

  /** Returns true when a span was dropped (an older one, or this one). */
  push(span: ReadableSpan): boolean {
    if (isStop(span) && this.stops.length < this.stops.capacity) {
      this.stops.push(span);
      return false;
    }
    const marker = isEvidence(span);
    if (!this.full) {
      (marker ? this.evidence : this.other).push(span);
      return false;
    }
    if (this.other.length > 0) this.other.take(1);
    else if (marker) this.evidence.take(1);
    else return true;
    (marker ? this.evidence : this.other).push(span);
    return true;
  }

  /** Up to `max` spans of the shared lanes (markers, then other spans): what frees room when they are full; Stop markers keep their reserve. */
  takeShared(max: number): ReadableSpan[] {
    const out = this.evidence.take(max);
    if (out.length < max) out.push(...this.other.take(max - out.length));
    return out;
  }

  /** Up to `max` spans: Stop markers first, then markers, then other spans. */
  take(max: number): ReadableSpan[] {
    const out = this.stops.take(max);
    if (out.length < max) out.push(...this.evidence.take(max - out.length));
    if (out.length < max) out.push(...this.other.take(max - out.length));
    return out;
  }
}
