import { boundMs, decidingSpan, mapServiceTime, witnessWords } from './service-spans.js';
import type { TimelineCommitWitness, TimelineItem } from './types.js';

/**
 * A commit's time as an interval on the agent's clock and who witnessed it
 * (issue 49, METRICS.md's interval rule), for the timeline: the report's
 * interval where it gives one (ghost commits: report_ghost_commits), else
 * the client's rule: `response`, [marker − round trip, marker]; `request_sent`,
 * [sent, no end); anything else (manual, an older afterstop's response
 * without its round trip), the marker's point.
 */
export interface CommitIntervalInput {
  evidence: string | null;
  /** The marker's time (ns since the epoch). */
  marker_ns: bigint;
  round_trip_ms: number | null;
  unanswered_ms: number | null;
  /** The report's interval and witness of the commit (agent clock, ns; latest null: open), when it has them. */
  earliest_ns: bigint | null;
  latest_ns: bigint | null;
  /** The report found an interval for it (a ghost commit's row): then latest_ns null means open, not unknown. */
  decided: boolean;
  witness: string | null;
  witness_verdict: string | null;
  delta_min_ns: bigint | null;
  delta_max_ns: bigint | null;
  /** The span id its request's traceparent carried: the service spans answering it are drawn with it. */
  request_span_id: string | null;
  /** The report's deciding span of the witness: its service, name and end on the witness's own clock (ns since the epoch). */
  witness_service: string | null;
  witness_span: string | null;
  witness_end_ns: bigint | null;
}

const offset = (ns: bigint, origin: bigint): number => Number(ns - origin) / 1e6;
const WITNESSES = ['service', 'mcp_server'] as const;
const VERDICTS = ['happened', 'failed', 'received'] as const;
const oneOf = <T extends string>(list: readonly T[], v: string | null): T | null => (v !== null && (list as readonly string[]).includes(v) ? (v as T) : null);

/** The client's interval of a commit (ms from origin), from its evidence alone. */
export function clientInterval(c: Pick<CommitIntervalInput, 'evidence' | 'marker_ns' | 'round_trip_ms' | 'unanswered_ms'>, origin: bigint): { earliest_ms: number; latest_ms: number | null } {
  const at = offset(c.marker_ns, origin);
  if (c.evidence === 'response' && c.round_trip_ms !== null) return { earliest_ms: at - c.round_trip_ms, latest_ms: at };
  if (c.evidence === 'request_sent') return { earliest_ms: at - (c.unanswered_ms ?? 0), latest_ms: null };
  return { earliest_ms: at, latest_ms: at };
}

/** The interval and witness of a commit, its witness' deciding span looked up among the run's service items. */
export function commitWitness(c: CommitIntervalInput, origin: bigint, items: readonly TimelineItem[]): TimelineCommitWitness {
  const own = clientInterval(c, origin);
  const interval = c.decided && c.earliest_ns !== null ? { earliest_ms: offset(c.earliest_ns, origin), latest_ms: c.latest_ns === null ? null : offset(c.latest_ns, origin) } : own;
  const witness = oneOf(WITNESSES, c.witness);
  const verdict = witness === null ? null : oneOf(VERDICTS, c.witness_verdict);
  const bound = witness === null ? null : boundMs(c.delta_min_ns, c.delta_max_ns);
  const head = { ...interval, witness, witness_verdict: verdict, clock_bound_ms: bound };
  // The report's deciding span where it names one (mapped here as a lane is: the bound's midpoint), else the drawn lanes'.
  if (witness !== null && c.witness_span !== null && c.witness_end_ns !== null) {
    const end = mapServiceTime(offset(c.witness_end_ns, origin), bound);
    return { ...head, witness_service: c.witness_service, witness_span: c.witness_span, witness_end_ms: end.at, witness_uncertainty_ms: end.uncertainty };
  }
  return { ...head, ...witnessWords(head, decidingSpan(items, c.request_span_id, verdict)) };
}
