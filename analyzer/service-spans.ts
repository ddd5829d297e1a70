import type { RunServiceSpansRow } from './sql/query-rows.js';
import type { ClockBoundMs, TimelineCommit, TimelineCommitWitness, TimelineItem, TimelineServiceSpan } from './types.js';

/**
 * The far side's witness on a run's timeline (issue 49): the spans of the
 * service a tool's request reached (role `service`) placed on the agent's
 * clock through the clock bound, and what a commit's witness says, in the
 * fields the renderers word. The bound is an input (δ = service clock minus
 * agent clock, in ns): the store's (the report's bound of the two processes)
 * where the query gives it.
 */

/** A row of run-service-spans.sql, as much of it as the timeline reads (δ bounds of the span's process against the run's, ns: max from every pair, min from the answered ones; both null: no pair). */
export type ServiceSpanInput = Omit<RunServiceSpansRow, 'run_id' | 'parent_span_id'>;

/** ns as ms. */
const ms = (ns: bigint): number => Number(ns) / 1e6;

/** The bound in ms, or null when no pair bounds the clock. */
export function boundMs(deltaMin: bigint | null, deltaMax: bigint | null): ClockBoundMs | null {
  if (deltaMax === null && deltaMin === null) return null;
  return { min: deltaMin === null ? null : ms(deltaMin), max: deltaMax === null ? null : ms(deltaMax) };
}

/**
 * A service time (ms on the agent's axis as if the clocks agreed) on the agent's clock: the interval
 * [t − δmax, t − δmin] (no upper end without δmin), its midpoint and half-width. With no bound, the time as it
 * is (uncertainty unknown); with δmax alone, the earliest the bound allows (no upper end).
 */
export function mapServiceTime(t: number, bound: ClockBoundMs | null): { at: number; earliest: number; latest: number | null; uncertainty: number | null } {
  // δmax comes from every pair: without it, no pair bounds the clock.
  if (bound === null || bound.max === null) return { at: t, earliest: t, latest: t, uncertainty: null };
  if (bound.min === null) return { at: t - bound.max, earliest: t - bound.max, latest: null, uncertainty: null };
  // A consistent store has min ≤ max; read them in order anyway (a bound the data contradicts is still drawn).
  const lo = Math.min(bound.min, bound.max);
  const hi = Math.max(bound.min, bound.max);
  return { at: t - (lo + hi) / 2, earliest: t - hi, latest: t - lo, uncertainty: (hi - lo) / 2 };
}

const status = (code: number): 'unset' | 'ok' | 'error' => (code === 2 ? 'error' : code === 1 ? 'ok' : 'unset');

/** The service spans of a run as timeline items, on the agent's clock (ms from `origin`). */
export function serviceItems(rows: readonly ServiceSpanInput[], origin: bigint): TimelineServiceSpan[] {
  return rows.map((r) => {
    const bound = boundMs(r.delta_min_ns, r.delta_max_ns);
    const start = mapServiceTime(ms(r.start_ns - origin), bound);
    const end = mapServiceTime(ms(r.end_ns - origin), bound);
    return {
      kind: 'service_span',
      span_id: r.span_id,
      start_ms: start.at,
      end_ms: end.at,
      name: r.name,
      service: r.service,
      process: r.process,
      status: status(r.status_code),
      work: r.work,
      entry: r.entry,
      system: r.system,
      call_id: r.call_id,
      tool_span_id: r.tool_span_id,
      request_span_id: r.request_span_id,
      approximate: true,
      clock_bound_ms: bound,
    };
  });
}

/** Half the bound's width, in ms (null: no lower δ, so no upper end; or no bound). */
export function uncertaintyOf(bound: ClockBoundMs | null): number | null {
  if (bound === null || bound.min === null || bound.max === null) return null;
  return Math.abs(bound.max - bound.min) / 2;
}

/**
 * The span that decides a witness, of the service spans answering the request `requestSpanId`: for `happened`
 * the work span that ended last without error; `failed`, the failed work span that ended last; `received`, the
 * entry span. Null when none is drawn (an MCP server's witness, or a span the timeline left out).
 */
export function decidingSpan(items: readonly TimelineItem[], requestSpanId: string | null, verdict: TimelineCommitWitness['witness_verdict']): TimelineServiceSpan | null {
  if (requestSpanId === null || verdict === null) return null;
  const mine = items.filter((i): i is TimelineServiceSpan => i.kind === 'service_span' && i.request_span_id === requestSpanId);
  const pick = verdict === 'happened' ? mine.filter((s) => s.work && s.status !== 'error') : verdict === 'failed' ? mine.filter((s) => s.work && s.status === 'error') : mine.filter((s) => s.entry);
  let best: TimelineServiceSpan | null = null;
  for (const s of pick) if (best === null || s.end_ms > best.end_ms) best = s;
  return best;
}

/** What the timeline says of a commit's witness: the service and span that decided it, and when that span ended (± the bound). */
export function witnessWords(
  commit: Pick<TimelineCommit, 'witness' | 'witness_verdict' | 'clock_bound_ms'>,
  span: TimelineServiceSpan | null,
): Pick<TimelineCommitWitness, 'witness_service' | 'witness_span' | 'witness_end_ms' | 'witness_uncertainty_ms'> {
  if (commit.witness !== 'service' || span === null) return { witness_service: null, witness_span: null, witness_end_ms: null, witness_uncertainty_ms: null };
  const bound = commit.clock_bound_ms ?? span.clock_bound_ms;
  return { witness_service: span.service, witness_span: span.name, witness_end_ms: span.end_ms, witness_uncertainty_ms: uncertaintyOf(bound) };
}
