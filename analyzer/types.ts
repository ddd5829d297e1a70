/** Public types of the analyzer: the leak report of docs/spec/METRICS.md. */

export const REPORT_SCHEMA = 'afterstop.leak-report/0.1';

/** A distribution in milliseconds; null figures when it is empty. */
export interface Distribution {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export interface Figures {
  runs: number;
  cancelled_runs: number;
  /** Of the cancelled runs, those whose cancel is inferred (a foreign trace without afterstop markers). */
  cancelled_runs_inferred: number;
  unended_runs: number;
  cancel_ack_ms: Distribution;
  cancel_settle_ms: Distribution;
  unacknowledged_cancels: number;
  /** Commits known to have landed after Stop (METRICS.md §2). */
  ghost_commits: number;
  ghost_commits_inferred: number;
  ghost_commits_compensated: number;
  /** Ghost commits of tools whose effect is irreversible or unknown: the ones to alarm on. */
  ghost_commits_alarming: number;
  /**
   * Side effects in flight at Stop whose outcome afterstop cannot see (afterstop addition to METRICS.md §2):
   * a request whose body reached the service and whose answer was lost after Stop, a tool call that
   * started and never ended, or a tool call in flight at Stop whose effect was out of sight (an MCP
   * tools/call: possible_kind out_of_sight). Not ghost commits; the ghost-commit budget counts them unless told otherwise.
   */
  ghost_commits_possible: number;
  /** Of those, the ones of irreversible or unknown effects. */
  ghost_commits_possible_alarming: number;
  /**
   * The far side's witness (issue 49, METRICS.md §2): known ghost commits a service confirmed (its own spans'
   * work under the commit's request, or afterstop's MCP server's commit, after Stop beyond the clock bound), and
   * commits the client's evidence alone would call known or possible that the witness ruled out (its work failed,
   * or was over before Stop beyond the bound). Neither is counted in the figures above but as they say.
   */
  ghost_commits_confirmed: number;
  ghost_commits_ruled_out: number;
  orphan_tool_calls: number;
  repaired_tool_calls: number;
  late_results: number;
  orphan_processes: number;
  tokens_after_stop: {
    input: number;
    output: number;
    observed_calls: number;
    estimated_calls: number;
    calls_without_usage: number;
    /** Calls with tokens after Stop whose model has no price: their cost is missing from ghost_tax_usd. */
    unpriced_calls: number;
    /** The tokens after Stop of calls without a price (of `input` and `output`): billed, missing from ghost_tax_usd (afterstop addition to METRICS.md §4). */
    unpriced_tokens: { input: number; output: number };
    /** Model calls that started after Stop: the loop went on (afterstop addition to METRICS.md §4). */
    calls_started_after_stop: number;
  };
  ghost_tax_usd: number;
  post_cancel_errors: { orphan_tool_call_rejected: number; other: number };
  cleanup_errors: number;
  replay_duplicates: number;
  replayed_conversations: number;
  /**
   * The guard (afterstop addition): commits its fence prevented (a tool's mutating request made after Stop,
   * refused before anything was sent), those of irreversible or unknown effect, replays its idempotency key
   * deduplicated (not counted in replay_duplicates), and runs cancelled by a deadline (source `timeout`).
   */
  commits_prevented: number;
  commits_prevented_alarming: number;
  replays_deduplicated: number;
  deadline_cancels: number;
  /**
   * Runs beside agent frameworks, agent SDKs or MCP clients afterstop does not instrument
   * (afterstop.run.uninstrumented, or a run of Google ADK or Strands seen only through their own spans), and
   * those packages: where `runs` > 0, the figures are lower bounds (METRICS.md, "Lower bounds").
   */
  uninstrumented: { runs: number; packages: string[] };
  steering: { inject_ms: Distribution; dropped: number; violations: number };
  cancel_depth: { '0': number; '1': number; '2': number; '3': number; '4': number };
}

/** Ghost commits of one tool and effect class. */
export interface ToolGhostCommits {
  tool: string;
  effect: string;
  ghost_commits: number;
  ghost_commits_inferred: number;
  ghost_commits_possible: number;
  /** Commits of the tool the guard's fence prevented (afterstop addition). */
  commits_prevented: number;
}

/** Tokens billed after Stop by one model, and their cost. */
export interface ModelTokensAfterStop {
  model: string;
  input: number;
  output: number;
  ghost_tax_usd: number;
  priced: boolean;
}

export interface GroupFigures extends Figures {
  service: string | null;
  agent: string | null;
  framework: string | null;
  /** The group's share of the totals' lists of the same names (an addition to METRICS.md, for labels by group). */
  ghost_commits_by_tool: ToolGhostCommits[];
  tokens_after_stop_by_model: ModelTokensAfterStop[];
}

/**
 * The kinds of finding, worst first as the report orders them by severity;
 * what each says (its detail) is written once, in queries/model/findings.sql.
 */
export const FINDING_KINDS = [
  'ghost_commit',
  'possible_ghost_commit',
  'ghost_commit_inferred',
  'replay_duplicate',
  'tokens_after_stop',
  'orphan_tool_call',
  'unacknowledged_cancel',
  'post_cancel_error',
  'unended_run',
  'orphan_process',
  'mcp_cancel_not_propagated',
  'mcp_handler_finished_after_cancel',
  'commit_witnessed_by_service',
  'commit_inside_clock_bound',
  'cleanup_error',
  'steer_violation',
  'steer_dropped',
] as const;

export type FindingKind = (typeof FINDING_KINDS)[number];

export const isFindingKind = (kind: string): kind is FindingKind => (FINDING_KINDS as readonly string[]).includes(kind);

export interface Finding {
  kind: FindingKind;
  /** 1 is the worst. */
  severity: number;
  trace_id: string;
  run_id: string;
  conversation_id: string | null;
  tool: string | null;
  time: string;
  detail: string;
}

export interface SkippedInput {
  file: string;
  /** 1-based; 0 when the whole file could not be read. */
  line: number;
  reason: string;
}

/** Cancelled runs whose latency is above the previous bucket's bound and up to `upper_ms` (null: above the last bound). */
export interface HistogramBucket {
  upper_ms: number | null;
  runs: number;
}

/** What Stop left behind in one time bucket, for one service. */
export interface TimelinePoint {
  /** The start of the bucket (ISO-8601). */
  time: string;
  service: string | null;
  cancelled_runs: number;
  ghost_commits: number;
  tokens_after_stop: { input: number; output: number };
  ghost_tax_usd: number;
}

/** The cancel-depth scorecard of one framework, across services and agents. */
export interface FrameworkScore {
  framework: string | null;
  cancelled_runs: number;
  cancel_depth: { '0': number; '1': number; '2': number; '3': number; '4': number };
}

/**
 * What the report had to judge (an afterstop addition to METRICS.md): nothing read is not nothing found.
 * `runs`: the window holds agent runs; `no_spans`: the store holds no span (no trace file at the paths, or
 * none of their lines a span); `no_runs`: spans, but no agent run starting in the window. Every format says
 * the note first; `leak-report` does not pass its budgets on it (exit 3, unless --allow-empty).
 */
export interface ReportEvidence {
  status: 'runs' | 'no_spans' | 'no_runs';
  /** What was read and why there is nothing to judge, in one sentence; null with runs. */
  note: string | null;
  /** Runs stamped in the future (clock skew, bad data), left out of the window; absent when there is none. */
  future_runs?: FutureRuns;
}

/** Runs that start more than a day after the report's time: the window leaves them out, the report names them. */
export interface FutureRuns {
  /** How many. */
  runs: number;
  /** Where the future begins: the report's time and a day (ISO-8601). */
  from: string;
  /** The earliest few. */
  examples: { trace_id: string; run_id: string; start: string }[];
}

/**
 * The report's verdict in words (an afterstop addition; `leak-report --format json` gives it, under the budgets
 * given; `analyze()` does not): what went wrong, never more certain than the evidence (docs/leak-report.md).
 */
export interface ReportVerdict {
  /**
   * `attention`: something went wrong after Stop, or a budget was broken; `possible`: nothing known, but
   * side effects in flight at Stop could not be ruled out; `lower_bound`: nothing seen, in runs beside a
   * framework afterstop does not instrument; `clear`: runs were stopped and nothing kept running;
   * `nothing_to_judge`: no run read, or none stopped.
   */
  status: 'attention' | 'possible' | 'lower_bound' | 'clear' | 'nothing_to_judge';
  /** One or a few sentences, plain text (trace content, such as tool names, is in it). */
  sentence: string;
  /** The one-line remedy of each kind among the findings. */
  remedies?: Partial<Record<FindingKind, string>>;
}

export interface LeakReport {
  schema: typeof REPORT_SCHEMA;
  window: { from: string | null; to: string | null };
  /** Said first by every format when it is not `runs`. */
  evidence: ReportEvidence;
  /** The verdict, in `leak-report --format json` only (an afterstop addition). */
  verdict?: ReportVerdict;
  totals: Figures & {
    ghost_commits_by_tool: ToolGhostCommits[];
    tokens_after_stop_by_model: ModelTokensAfterStop[];
    cancel_depth_by_framework: FrameworkScore[];
  };
  /** How the cancel latencies of the window are spread (an addition to METRICS.md's keys, for charts). */
  distributions: { cancel_ack_ms: HistogramBucket[]; cancel_settle_ms: HistogramBucket[] };
  /** The window over time, per service (an addition to METRICS.md's keys, for charts). */
  timeline: { unit: 'hour' | 'day'; points: TimelinePoint[] };
  groups: GroupFigures[];
  findings: Finding[];
  input: {
    /** What was named to read: the paths given (files, folders, globs), or the ClickHouse server and table (no credentials). */
    paths: string[];
    /** Trace files named by the inputs, and how many were read now (new or grown). */
    files: number;
    files_read: number;
    spans_read: number;
    spans_added: number;
    /** Spans the report could draw on: in the store (DuckDB), or read from the window's days (ClickHouse). */
    spans_in_store: number;
    /** The lines that could not be used, in the files named by the inputs: the first 1,000 (report.ts, MAX_SKIPPED_LISTED), by file and line. */
    skipped: SkippedInput[];
    /** All of them. */
    skipped_count: number;
  };
  prices: { as_of: string | null; source: string };
  /**
   * The runs of the worst findings drawn against their Stop (an afterstop addition; present only when asked:
   * the HTML report asks, `--timelines N`), in the order of their first finding.
   */
  timelines?: RunTimeline[];
}

// ------------------------------------------------------------- run timelines

/**
 * A run drawn against its Stop (`afterstop explain`, the HTML report's timelines; an afterstop addition).
 * Times are milliseconds from the run's origin: C for a cancelled run, else its start.
 */
export interface RunTimeline {
  /** The run's id within its trace, as the findings show it. */
  run_id: string;
  trace_id: string;
  service: string | null;
  agent: string | null;
  framework: string | null;
  conversation_id: string | null;
  /** The instant the offsets count from: C, or the run's start when it was not cancelled (ISO-8601, and ns since the epoch as decimal text). */
  origin: string;
  origin_ns: string;
  cancelled: boolean;
  /** C comes from a foreign trace's abort evidence, not from an afterstop.cancel.request marker. */
  cancel_inferred: boolean;
  outcome: string | null;
  start_ms: number;
  /** null: the run span was never exported (the run never ended, or its process died). */
  end_ms: number | null;
  /** The acknowledgement and settle markers (afterstop.cancel.ack, afterstop.cancel.settle). */
  ack_ms: number | null;
  settle_ms: number | null;
  /**
   * The agent frameworks, agent SDKs or MCP clients afterstop does not instrument that ran beside the run
   * (afterstop.run.uninstrumented, or the framework whose own spans the run is): when any, what is drawn is a
   * lower bound. Empty when none.
   */
  uninstrumented: string[];
  /** The run's model calls, tool calls, commits and markers, in time order: each is one span of the run. */
  items: TimelineItem[];
  figures: RunFigures;
  /** The next run of the conversation, when it failed after this Stop (a post-cancel error), on the same origin. */
  next_run: RunTimeline | null;
}

interface TimelineItemBase {
  /** The span it is drawn from. */
  span_id: string;
  start_ms: number;
}

export interface TimelineModelCall extends TimelineItemBase {
  kind: 'model_call';
  end_ms: number;
  name: string;
  model: string | null;
  status: 'unset' | 'ok' | 'error';
  /** It ended with an abort or cancel. */
  cancelled: boolean;
  started_after_stop: boolean;
  /** What it billed after Stop (a call that ended after C), and how that is known. */
  after_stop: { input: number; output: number; how: 'observed' | 'estimated' | 'unknown'; cost_usd: number; priced: boolean } | null;
}

export interface TimelineToolCall extends TimelineItemBase {
  kind: 'tool_call';
  /** null: it never ended (the span drawn is its afterstop.tool.start marker). */
  end_ms: number | null;
  tool: string | null;
  call_id: string | null;
  effect: string | null;
  /** tool, step (a framework step) or compensate. */
  tool_kind: string | null;
  result: string | null;
  status: 'unset' | 'ok' | 'error';
  /** Its result never reached the conversation (an orphan), or it did only by a history repair. */
  outcome: 'lost' | 'repaired' | null;
  late: boolean;
  /** A ghost the report draws on the call itself: possible (it never ended), inferred (a foreign trace's tool that ended after Stop). */
  ghost: 'possible' | 'inferred' | null;
  /** afterstop recorded it (its markers or its own tool span); false: a foreign span. */
  recorded: boolean;
  /**
   * An MCP tools/call (issue 48): the run's call (`client`) or the server's far half of it (`server`, joined by the
   * traceparent the request carried), its server and JSON-RPC request id, how the Stop crossed (client:
   * notification, stream_closed, none) and what the server's handler did after the cancel (stopped,
   * finished_after_cancel); null for any other tool call.
   */
  mcp: { side: 'client' | 'server'; server: string | null; request_id: string | null; cancel_via: string | null; handler: string | null } | null;
}

/** With its interval and witness (issue 49: TimelineCommitWitness; absent in a timeline read back from an older report). */
export interface TimelineCommit extends TimelineItemBase, TimelineCommitWitness {
  kind: 'commit';
  tool: string | null;
  call_id: string | null;
  effect: string | null;
  evidence: string | null;
  /** known: it landed after Stop; possible: its request was sent before and its answer lost after Stop. */
  ghost: 'known' | 'possible' | null;
  compensated: boolean;
  /** A possible ghost's request reached the service then: at the service's receipt (its earliest in the agent's clock) where a service witnessed it, else when its body was sent. */
  sent_ms: number | null;
}

export interface TimelineMarker extends TimelineItemBase {
  kind: 'marker';
  /** The marker's span name (afterstop.cancel.request, afterstop.history.repair, ...). */
  name: string;
}

// The far side's witness (issue 49): what a run's timeline draws of it.

/** The δ bounds of a service's clock against the agent's (service clock minus agent clock), in ms: max from every pair, min from the answered ones (null: none answered). */
export interface ClockBoundMs {
  min: number | null;
  max: number | null;
}

/**
 * A commit's time as an interval on the agent's clock (ms from the origin) and who witnessed it: `response`, the request's
 * round trip; `request_sent`, from the send with no end unless a witness says; `manual` (and an older afterstop's
 * `response`), the point of its marker; with a witness `happened`, its work spans mapped through the clock bound.
 */
export interface TimelineCommitWitness {
  earliest_ms: number;
  /** null: no end is known (a request whose answer was lost, and no witness). */
  latest_ms: number | null;
  /** service: the far side's own spans under the commit's request; mcp_server: afterstop's MCP server (issue 48). */
  witness: 'service' | 'mcp_server' | null;
  witness_verdict: 'happened' | 'failed' | 'received' | null;
  /** The bound the witness' times were mapped through, null without a witness from another clock. */
  clock_bound_ms: ClockBoundMs | null;
  /** The witness' service (resource service.name) and the span that decided it: the last work span to end (happened), a failed one, or the entry span (received). */
  witness_service: string | null;
  witness_span: string | null;
  /** That span's end on the agent's clock (the bound's midpoint), ± half the bound's width (null: no upper δ, the earliest placement). */
  witness_end_ms: number | null;
  witness_uncertainty_ms: number | null;
}

/**
 * A span of the service a tool call's request reached (role `service`), drawn under its tool call: times mapped to the
 * agent's clock by the clock bound's midpoint (its earliest when the bound has no lower δ), so `approximate`.
 */
export interface TimelineServiceSpan extends TimelineItemBase {
  kind: 'service_span';
  end_ms: number;
  /** The span's name, as the service wrote it (untrusted text). */
  name: string;
  /** Its resource's service.name and process key (service.instance.id, host/pid, or the service name). */
  service: string | null;
  process: string | null;
  status: 'unset' | 'ok' | 'error';
  /** A work span (db.*, messaging.*, an outgoing CLIENT or PRODUCER span): the witness of an effect; false: the entry (SERVER) span or other internal work. */
  work: boolean;
  /** The service's entry span (kind SERVER, parent the tool's request span). */
  entry: boolean;
  /** db.system(.name), messaging.system, or null. */
  system: string | null;
  /** The tool call it lies under (its call id; its span id without one) and the request span it answers (its entry's parent). */
  call_id: string | null;
  tool_span_id: string | null;
  request_span_id: string | null;
  /** The times are the service's, mapped: the bound they were mapped through (null: no pair bounds this clock: drawn at the service's own time). */
  approximate: boolean;
  clock_bound_ms: ClockBoundMs | null;
}

/** One element of a run's timeline, by kind. */
export type TimelineItem = TimelineModelCall | TimelineToolCall | TimelineCommit | TimelineMarker | TimelineServiceSpan;

/** The figures of METRICS.md for one run, with why they are what they are. */
export interface RunFigures {
  cancel_ack_ms: number | null;
  cancel_settle_ms: number | null;
  /** 0 to 4 for a cancelled run (METRICS.md §8). */
  cancel_depth: number | null;
  /** What kept the depth from the next level, in words; null at 4 or for a run not cancelled. */
  cancel_depth_reason: string | null;
  ghost_commits: { known: number; possible: number; inferred: number; compensated: number };
  orphan_tool_calls: { orphans: number; repaired: number; late_results: number; requested_never_run: number; never_ended: number; result_lost: number };
  tokens_after_stop: {
    input: number;
    output: number;
    observed_calls: number;
    estimated_calls: number;
    calls_without_usage: number;
    calls_started_after_stop: number;
    ghost_tax_usd: number;
    unpriced_calls: number;
    /** The tokens after Stop of the calls without a price: missing from ghost_tax_usd. */
    unpriced_tokens: { input: number; output: number };
  };
  /** The next run's error after this Stop (METRICS.md §5). */
  post_cancel_error: { run_id: string; cause: string; text: string; time: string } | null;
}

/** What `afterstop explain` is asked about: a finding by its number in the report (1 is the worst), or a run or trace by its id. */
export type ExplainTarget = { finding: number } | { id: string };

/** What `afterstop explain` gives (its `--format json`). */
export interface Explanation {
  /** The finding asked about, as the report lists it. */
  finding: Finding | null;
  timelines: RunTimeline[];
  /** Runs the id matched beyond the ones drawn. */
  runs_not_drawn: number;
  skipped: SkippedInput[];
}
