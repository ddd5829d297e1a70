import { SPAN_TOOL_COMMIT, SPAN_TOOL_START } from '@afterstop/span-contract';
import { listValue } from '@duckdb/node-api';
import { prepareReportSpans } from './report.js';
import { iso, localRunId } from './report-assembly.js';
import type { Store } from './store.js';
import { commitWitness } from './commit-interval.js';
import { serviceItems, type ServiceSpanInput } from './service-spans.js';
import type { ExplainRunsRow, RunFiguresRow, RunServiceSpansRow, RunTimelineRow } from './sql/query-rows.js';
import type { Finding, RunFigures, RunTimeline, TimelineItem, TimelineToolCall } from './types.js';

/**
 * Runs drawn against their Stop, from the store: the spans of each run
 * (run-timeline.sql) and its figures (run-figures.sql), placed on one time
 * axis. Needs the report's prepare chain (report.ts, prepareReport) in the
 * store's session; reads the runs' spans from their files.
 */

/** Milliseconds from `origin` (ns), to the nanosecond. */
const offset = (ns: bigint, origin: bigint): number => Number(ns - origin) / 1e6;
const status = (code: number): 'unset' | 'ok' | 'error' => (code === 2 ? 'error' : code === 1 ? 'ok' : 'unset');
const fmt = (ms: number): string => `${Math.round(ms).toLocaleString('en-US')} ms`;

/** What kept a cancelled run's depth from the next level (METRICS.md §8), in words. */
export function depthReason(f: RunFiguresRow, budgetMs: number, uninstrumented: readonly string[] = []): string | null {
  if (f.depth === null || f.depth >= 4) return null;
  if (!f.loop_ok) return `the loop went on: ${f.work_after} model or tool call(s) started after Stop`;
  if (!f.model_ok) return `a model call in flight at Stop ended ${fmt(f.model_over_ms ?? 0)} after it (budget ${fmt(budgetMs)})`;
  if (!f.tools_ok) {
    const tool = f.slow_tool ?? 'a tool call';
    if (f.slow_tool_ms === null) return `${tool} was running at Stop and never ended`;
    return f.slow_on_server
      ? `${tool} was running at Stop and its MCP server's handler ended ${fmt(f.slow_tool_ms)} after it (budget ${fmt(budgetMs)})`
      : `${tool} was running at Stop and ended ${fmt(f.slow_tool_ms)} after it (budget ${fmt(budgetMs)})`;
  }
  const ghosts = f.ghost_commits + f.ghost_possible + f.ghost_inferred;
  if (ghosts > 0) {
    const parts = [
      f.ghost_commits > 0 ? `${f.ghost_commits} ghost commit(s)` : '',
      f.ghost_possible > 0 ? `${f.ghost_possible} possible ghost commit(s) (outcome not seen)` : '',
      f.ghost_inferred > 0 ? `${f.ghost_inferred} inferred ghost commit(s)` : '',
    ].filter(Boolean);
    return `a side effect may have landed after Stop: ${parts.join(', ')}`;
  }
  if (f.mcp_not_propagated > 0)
    return `the Stop did not cross to ${f.mcp_not_propagated_server === null ? 'the MCP server' : `the MCP server ${f.mcp_not_propagated_server}`} of ${f.mcp_not_propagated} tool call(s) in flight (no notifications/cancelled sent, the request stream left open): the server was left to run`;
  if (uninstrumented.length > 0)
    return `the run was beside ${uninstrumented.join(', ')}, which afterstop does not instrument: whether ${uninstrumented.length === 1 ? 'its' : 'their'} effects landed after Stop cannot be seen`;
  if (f.tools_at_stop > 0) return `${f.tools_at_stop} tool call(s) of a foreign trace were running at Stop: whether their effects landed cannot be seen`;
  return 'a foreign trace (its Stop inferred, its tools not recorded by afterstop) cannot show that nothing landed after Stop';
}

function figures(f: RunFiguresRow | undefined, budgetMs: number, origin: bigint, uninstrumented: readonly string[]): RunFigures {
  return {
    cancel_ack_ms: f?.ack_ms ?? null,
    cancel_settle_ms: f?.settle_ms ?? null,
    cancel_depth: f?.depth ?? null,
    cancel_depth_reason: f === undefined ? null : depthReason(f, budgetMs, uninstrumented),
    ghost_commits: { known: f?.ghost_commits ?? 0, possible: f?.ghost_possible ?? 0, inferred: f?.ghost_inferred ?? 0, compensated: f?.ghost_compensated ?? 0 },
    orphan_tool_calls: {
      orphans: f?.orphans ?? 0,
      repaired: f?.repaired ?? 0,
      late_results: f?.late ?? 0,
      requested_never_run: f?.orphans_requested ?? 0,
      never_ended: f?.orphans_unended ?? 0,
      result_lost: f?.orphans_result ?? 0,
    },
    tokens_after_stop: {
      input: Number(f?.input_after ?? 0),
      output: Number(f?.output_after ?? 0),
      observed_calls: f?.observed_calls ?? 0,
      estimated_calls: f?.estimated_calls ?? 0,
      calls_without_usage: f?.unknown_calls ?? 0,
      calls_started_after_stop: f?.started_after ?? 0,
      ghost_tax_usd: f?.cost_usd ?? 0,
      unpriced_calls: f?.unpriced_calls ?? 0,
      unpriced_tokens: { input: Number(f?.unpriced_input ?? 0), output: Number(f?.unpriced_output ?? 0) },
    },
    post_cancel_error: f?.next_run_id != null && f.error_cause !== null ? { run_id: localRunId(f.next_run_id), cause: f.error_cause, text: f.error_text ?? '', time: iso(f.error_ns ?? origin) } : null,
  };
}

/** An MCP tools/call's side of the boundary (issue 48), or null for any other tool call. */
const mcpOf = (r: RunTimelineRow): TimelineToolCall['mcp'] =>
  r.mcp_side === 'client' || r.mcp_side === 'server' ? { side: r.mcp_side, server: r.mcp_server, request_id: r.mcp_request_id, cancel_via: r.mcp_cancel_via, handler: r.mcp_handler } : null;

const ghostOf = (g: string | null): 'inferred' | 'possible' | null => (g === 'inferred' || g === 'possible' ? g : null);

/**
 * The tool spans drawn, one per call: where a call has several (the AI SDK's `ai.toolCall` span beside
 * afterstop's `execute_tool`), afterstop's, else the first; each with the ghost kind any of them was given.
 */
function oneSpanPerCall(rows: readonly RunTimelineRow[]): Map<RunTimelineRow, string | null> {
  const byCall = new Map<string, RunTimelineRow[]>();
  const drawn = new Map<RunTimelineRow, string | null>();
  for (const r of rows) {
    if (r.role !== 'tool') continue;
    if (r.call_id === null || r.mcp_side === 'server') drawn.set(r, r.ghost);
    else byCall.set(r.call_id, [...(byCall.get(r.call_id) ?? []), r]);
  }
  for (const spans of byCall.values()) {
    const kept = spans.find((r) => r.scope === 'afterstop') ?? spans[0]!;
    drawn.set(kept, kept.ghost ?? spans.find((r) => r.ghost !== null)?.ghost ?? null);
  }
  return drawn;
}

/**
 * The items of a run from its spans (an MCP call's server side, joined to it, drawn as a tool call of its own lane): model calls, tool calls (a call that
 * never ended is drawn from its start marker), commits and markers. A tool's
 * start marker is not drawn when its tool span is (the span carries the same start).
 */
export function timelineItems(rows: readonly RunTimelineRow[], origin: bigint, cNs: bigint | null = null, serviceRows: readonly ServiceSpanInput[] = []): TimelineItem[] {
  const ended = new Set(rows.filter((r) => r.role === 'tool').map((r) => r.call_id ?? r.span_id));
  const drawn = oneSpanPerCall(rows);
  const started = new Set(rows.filter((r) => r.name === SPAN_TOOL_START && r.call_id !== null).map((r) => r.call_id));
  // The far side's spans (issue 49), on the agent's clock: drawn under their tool calls, and the witnesses of commits.
  const services = serviceItems(serviceRows, origin);
  const items: TimelineItem[] = [...services];
  for (const r of rows) {
    const start_ms = offset(r.start_ns, origin);
    const base = { span_id: r.span_id, start_ms };
    if (r.role === 'model') {
      items.push({
        ...base,
        kind: 'model_call',
        end_ms: offset(r.end_ns, origin),
        name: r.name,
        model: r.model,
        status: status(r.status_code),
        cancelled: r.is_cancellation,
        started_after_stop: cNs !== null && r.start_ns >= cNs,
        after_stop:
          r.tokens_how === null
            ? null
            : {
                input: Number(r.input_after ?? 0),
                output: Number(r.output_after ?? 0),
                how: r.tokens_how as 'observed' | 'estimated' | 'unknown',
                cost_usd: r.cost_usd ?? 0,
                priced: r.priced ?? false,
              },
      });
    } else if (r.role === 'tool' && !drawn.has(r)) {
      // Another span of the same call (a framework's own telemetry beside afterstop's) is drawn in its stead.
      continue;
    } else if (r.role === 'tool' || r.role === 'mcp_server' || (r.name === SPAN_TOOL_START && r.call_id !== null && !ended.has(r.call_id))) {
      const unended = r.role === 'marker';
      items.push({
        ...base,
        kind: 'tool_call',
        end_ms: unended ? null : offset(r.end_ns, origin),
        tool: r.tool,
        call_id: r.call_id,
        effect: r.effect,
        tool_kind: r.tool_kind,
        result: r.result,
        status: status(r.status_code),
        outcome: r.lost ? (r.repaired ? 'repaired' : 'lost') : null,
        late: r.late ?? false,
        ghost: ghostOf(drawn.get(r) ?? r.ghost),
        recorded: unended || r.scope === 'afterstop' || (r.call_id !== null && started.has(r.call_id)),
        mcp: mcpOf(r),
      });
    } else if (r.name === SPAN_TOOL_COMMIT) {
      items.push({
        ...base,
        kind: 'commit',
        tool: r.tool,
        call_id: r.call_id,
        effect: r.effect,
        evidence: r.evidence,
        ghost: r.ghost === 'known' || r.ghost === 'possible' ? r.ghost : null,
        compensated: r.compensated ?? false,
        sent_ms: r.sent_ns === null ? null : offset(r.sent_ns, origin),
        ...commitWitness({ ...r, marker_ns: r.start_ns }, origin, services),
      });
    } else if (r.role === 'marker' && (r.name !== SPAN_TOOL_START || r.call_id === null)) {
      // (A tool start marker without a call id cannot be matched to its call: drawn as the marker it is.)
      items.push({ ...base, kind: 'marker', name: r.name });
    }
  }
  return items.sort((a, b) => a.start_ms - b.start_ms);
}

/** A run's timeline on `origin` (its C, or its start), from its rows. */
function timeline(run: ExplainRunsRow, rows: readonly RunTimelineRow[], f: RunFiguresRow | undefined, budgetMs: number, origin: bigint, serviceRows: readonly ServiceSpanInput[] = []): RunTimeline {
  const items = timelineItems(rows, origin, run.c_ns, serviceRows);
  const uninstrumented = run.uninstrumented === null ? [] : run.uninstrumented.split(',');
  return {
    run_id: run.local_id,
    trace_id: run.trace_id,
    service: run.service,
    agent: run.agent,
    framework: run.framework,
    conversation_id: run.conversation_id,
    origin: iso(origin),
    origin_ns: origin.toString(),
    cancelled: run.cancelled,
    cancel_inferred: run.cancel_inferred,
    outcome: run.outcome,
    start_ms: offset(run.start_ns, origin),
    end_ms: run.end_ns === null ? null : offset(run.end_ns, origin),
    ack_ms: run.a_ns === null ? null : offset(run.a_ns, origin),
    settle_ms: run.settle_ns === null ? null : offset(run.settle_ns, origin),
    uninstrumented,
    items,
    figures: figures(f, budgetMs, origin, uninstrumented),
    next_run: null,
  };
}

/** The store's row of a run by its key, or undefined (explain-runs.sql gives a run named by its key first). */
async function runRow(store: Store, key: string): Promise<ExplainRunsRow | undefined> {
  const [row] = await store.typedRows('explain-runs', { id: key, limit: 1n });
  return row?.run_id === key ? row : undefined;
}

/** A run to draw, by the store's key. */
export interface TimelineTarget {
  key: string;
  /** Draw the cancelled run whose Stop this run's error follows, this run beside it (a post-cancel error's finding). */
  asNextRun?: boolean;
}

/**
 * The timelines of the given runs, in the order given, each drawn once: a
 * cancelled run with, when its Stop was followed by the next run's error,
 * that run beside it. A target that is such a next run is drawn as that
 * (its cancelled run, itself beside) when asked, or when it was not cancelled
 * itself. Runs the store does not hold are left out. Needs the report's
 * prepare chain over a window that holds the runs (an open one: report.ts,
 * prepareReport), since the figures of a run outside it would read as none.
 */
export async function loadTimelines(store: Store, targets: readonly TimelineTarget[], options: { budgetMs?: number } = {}): Promise<RunTimeline[]> {
  const budgetMs = options.budgetMs ?? 1000;
  const runs = new Map<string, ExplainRunsRow>();
  const fetch = async (keys: Iterable<string>): Promise<void> => {
    for (const key of keys) {
      if (runs.has(key)) continue;
      const row = await runRow(store, key);
      if (row !== undefined) runs.set(key, row);
    }
  };
  const figuresOf = async (keys: Iterable<string>): Promise<Map<string, RunFiguresRow>> => {
    const list = [...new Set(keys)].filter((k) => runs.has(k));
    if (list.length === 0) return new Map();
    return new Map((await store.typedRows('run-figures', { runs: listValue(list) })).map((f) => [f.run_id, f]));
  };
  await fetch(targets.map((t) => t.key));
  const own = await figuresOf(targets.map((t) => t.key));
  // The run each target is drawn as.
  const mains: { target: string; main: string }[] = [];
  for (const t of targets) {
    const run = runs.get(t.key);
    if (run === undefined) continue;
    const previous = own.get(t.key)?.previous_run_id ?? null;
    mains.push({ target: t.key, main: previous !== null && (t.asNextRun === true || !run.cancelled) ? previous : t.key });
  }
  await fetch(mains.map((m) => m.main));
  const ofMains = await figuresOf(mains.map((m) => m.main));
  const nexts = [...ofMains.values()].map((f) => f.next_run_id).filter((k): k is string => k !== null);
  await fetch(nexts);
  const figures = new Map([...ofMains, ...(await figuresOf(nexts.filter((k) => !ofMains.has(k))))]);
  if (runs.size === 0) return [];
  let first = 0n;
  let last = 0n;
  for (const [i, r] of [...runs.values()].entries()) {
    if (i === 0 || r.start_ns < first) first = r.start_ns;
    if (i === 0 || r.start_ns > last) last = r.start_ns;
  }
  await prepareReportSpans(store, first, last + 1n);
  const byRun = new Map<string, RunTimelineRow[]>();
  for (const row of await store.typedRows('run-timeline', { runs: listValue([...runs.keys()]) })) {
    const list = byRun.get(row.run_id);
    if (list === undefined) byRun.set(row.run_id, [row]);
    else list.push(row);
  }
  const services = new Map<string, RunServiceSpansRow[]>();
  for (const row of await store.typedRows('run-service-spans', { runs: listValue([...runs.keys()]) })) {
    const list = services.get(row.run_id);
    if (list === undefined) services.set(row.run_id, [row]);
    else list.push(row);
  }
  const out: RunTimeline[] = [];
  const drawn = new Set<string>();
  for (const { main: key } of mains) {
    const run = runs.get(key);
    if (run === undefined || drawn.has(key)) continue;
    drawn.add(key);
    const origin = run.c_ns ?? run.start_ns;
    const t = timeline(run, byRun.get(key) ?? [], figures.get(key), budgetMs, origin, services.get(key));
    const nextKey = figures.get(key)?.next_run_id ?? null;
    const next = nextKey === null ? undefined : runs.get(nextKey);
    if (next !== undefined && nextKey !== null) t.next_run = timeline(next, byRun.get(nextKey) ?? [], figures.get(nextKey), budgetMs, origin, services.get(nextKey));
    out.push(t);
  }
  return out;
}

/** The runs of the worst findings, each once, at most `limit`: a post-cancel error's as the next run of its Stop. */
export function worstRuns(findings: readonly Finding[], limit: number): TimelineTarget[] {
  const targets = new Map<string, TimelineTarget>();
  for (const f of findings) {
    if (targets.size >= limit) break;
    const key = `${f.trace_id}:${f.run_id}`;
    if (!targets.has(key)) targets.set(key, { key, ...(f.kind === 'post_cancel_error' ? { asNextRun: true } : {}) });
  }
  return [...targets.values()];
}
