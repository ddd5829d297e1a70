import { query } from './queries.js';
import type { PriceTable } from './prices.js';
import { resolvePrices, type PriceKey } from './resolve-prices.js';
import { reportEvidence } from './report-evidence.js';
import { futureFromNs, toNs } from './report-time.js';
import {
  isFindingKind,
  REPORT_SCHEMA,
  type Distribution,
  type Figures,
  type Finding,
  type FrameworkScore,
  type HistogramBucket,
  type GroupFigures,
  type ModelTokensAfterStop,
  type ToolGhostCommits,
  type LeakReport,
  type FutureRuns,
  type ReportEvidence,
} from './types.js';
import type {
  CancelDepthRow,
  CancelLatencyRow,
  FindingsRow,
  GhostCommitsRow,
  OrphanProcessesRow,
  CommitsPreventedRow,
  OrphanToolCallsRow,
  PostCancelErrorsRow,
  QueryRows,
  ReplayDuplicatesRow,
  RunsRow,
  SteeringRow,
  TokensAfterStopRow,
} from './sql/query-rows.js';
import { QueryColumnError } from './errors.js';

/**
 * The engine-neutral half of the leak report: the statement lists, the
 * parameters each query takes from the report's options, and placing the typed
 * rows of the aggregate queries into the report. It loads no engine (neither
 * DuckDB nor ClickHouse's client): report.ts runs it over the store,
 * clickhouse/report.ts over ClickHouse.
 */

export interface ReportOptions {
  since?: Date | undefined;
  until?: Date | undefined;
  /** The report's time (default: when it is asked for): a run that starts more than a day after it is stamped in the future. */
  now?: Date | undefined;
  /** Cancel depth budget (METRICS.md §8). Default 1000 ms. */
  budgetMs?: number;
  /** The user's price table (`--prices`): the models it lists take its prices, over genai-prices'. */
  prices?: PriceTable | undefined;
  /** Where the prices came from: genai-prices and its version, and the user's file over it when given. */
  pricesSource: string;
  /** At most this many findings. Default 1000. */
  findingsLimit?: number;
}

/** The aggregate queries, one row per group and a total row each, merged by group into one row. */
type GroupRow = RunsRow &
  CancelLatencyRow &
  GhostCommitsRow &
  OrphanToolCallsRow &
  TokensAfterStopRow &
  PostCancelErrorsRow &
  ReplayDuplicatesRow &
  SteeringRow &
  CancelDepthRow &
  OrphanProcessesRow &
  CommitsPreventedRow;

function distribution(count: number, p50: number | null, p95: number | null, p99: number | null, max: number | null): Distribution {
  return { count, p50, p95, p99, max };
}

/** The prepare chain: over the facts the ingest kept, not the spans (report_spans, {@link prepareReportSpans}, is not built for a report). */
export const PREPARE = [
  'prepare-runs',
  'prepare-groups',
  'prepare-clock-bounds',
  'prepare-commit-verdicts',
  'prepare-ghost-commits',
  'prepare-tool-outcomes',
  'prepare-tokens',
  'prepare-post-cancel-errors',
  'prepare-cancel-depth',
  'prepare-cancel-latency',
] as const;

const AGGREGATES = [
  'runs',
  'cancel-latency',
  'ghost-commits',
  'orphan-tool-calls',
  'tokens-after-stop',
  'post-cancel-errors',
  'replay-duplicates',
  'commits-prevented',
  'steering',
  'cancel-depth',
  'orphan-processes',
] as const satisfies readonly (keyof QueryRows)[];

/** Place one group's rows of every aggregate query into the report's figures (no arithmetic: SQL did it). */
function figures(r: GroupRow): Figures {
  return {
    runs: r.runs,
    cancelled_runs: r.cancelled_runs,
    cancelled_runs_inferred: r.cancelled_runs_inferred,
    unended_runs: r.unended_runs,
    cancel_ack_ms: distribution(r.ack_count, r.ack_p50, r.ack_p95, r.ack_p99, r.ack_max),
    cancel_settle_ms: distribution(r.settle_count, r.settle_p50, r.settle_p95, r.settle_p99, r.settle_max),
    unacknowledged_cancels: r.unacknowledged_cancels,
    ghost_commits: r.ghost_commits,
    ghost_commits_inferred: r.ghost_commits_inferred,
    ghost_commits_compensated: r.ghost_commits_compensated,
    ghost_commits_alarming: r.ghost_commits_alarming,
    ghost_commits_possible: r.ghost_commits_possible,
    ghost_commits_possible_alarming: r.ghost_commits_possible_alarming,
    ghost_commits_confirmed: r.ghost_commits_confirmed,
    ghost_commits_ruled_out: r.ghost_commits_ruled_out,
    orphan_tool_calls: r.orphan_tool_calls,
    repaired_tool_calls: r.repaired_tool_calls,
    late_results: r.late_results,
    orphan_processes: r.orphan_processes,
    tokens_after_stop: {
      input: r.input,
      output: r.output,
      observed_calls: r.observed_calls,
      estimated_calls: r.estimated_calls,
      calls_without_usage: r.calls_without_usage,
      unpriced_calls: r.unpriced_calls,
      unpriced_tokens: { input: r.unpriced_input, output: r.unpriced_output },
      calls_started_after_stop: r.calls_started_after_stop,
    },
    ghost_tax_usd: r.ghost_tax_usd,
    post_cancel_errors: { orphan_tool_call_rejected: r.orphan_tool_call_rejected, other: r.other },
    cleanup_errors: r.cleanup_errors,
    replay_duplicates: r.replay_duplicates,
    replayed_conversations: r.replayed_conversations,
    commits_prevented: r.commits_prevented,
    commits_prevented_alarming: r.commits_prevented_alarming,
    replays_deduplicated: r.replays_deduplicated,
    deadline_cancels: r.deadline_cancels,
    uninstrumented: { runs: r.uninstrumented_runs, packages: r.uninstrumented === null ? [] : r.uninstrumented.split(',') },
    steering: { inject_ms: distribution(r.inject_count, r.inject_p50, r.inject_p95, r.inject_p99, r.inject_max), dropped: r.dropped, violations: r.violations },
    cancel_depth: { '0': r.depth_0, '1': r.depth_1, '2': r.depth_2, '3': r.depth_3, '4': r.depth_4 },
  };
}

const unknownKind = (kind: string): never => {
  throw new QueryColumnError(`findings: a finding of kind ${kind}, which types.ts's FINDING_KINDS does not know`);
};

/** A run's id within its trace, from the store's key `<trace id>:<run id>`. */
export const localRunId = (key: string): string => key.slice(key.indexOf(':') + 1);

/** A time in ns since the epoch, as ISO-8601 (ms). */
export const iso = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();

/** A row of findings.sql as the report lists it. */
export const findingOf = (r: FindingsRow): Finding => ({
  kind: isFindingKind(r.kind) ? r.kind : unknownKind(r.kind),
  severity: r.severity,
  trace_id: r.trace_id,
  // The run's id beside its trace id: the store keys runs by both (run_key in queries/model/fragments.sql).
  run_id: localRunId(r.run_id),
  conversation_id: r.conversation_id,
  tool: r.tool,
  time: iso(r.time_ns),
  detail: r.detail,
});

/**
 * The prices of the window's model calls as the temporary table report_prices, which prepare-tokens.sql
 * reads: each distinct provider, model and minute (model-call-price-keys.sql, through `rowsOf`) resolved in
 * resolve-prices.ts, the user's table first. The same for DuckDB and ClickHouse.
 */
export async function loadReportPrices(
  rowsOf: (params: Record<string, bigint | string | null>) => Promise<PriceKey[]>,
  load: (prices: string) => Promise<void>,
  options: Pick<ReportOptions, 'since' | 'until' | 'prices'>,
): Promise<void> {
  const keys = await rowsOf(reportParams(options)('model-call-price-keys'));
  // One JSON parameter: it binds the same whether the table is empty or not.
  await load(JSON.stringify(resolvePrices(keys, options.prices)));
}

/**
 * The report's window as the queries take it: runs that start at or after since_ns and before until_ns
 * (NULL: open). Its end is never later than the future's start ({@link futureFromNs}): a run stamped in
 * year 2200 is in no window (the report counts and names it, {@link futureRuns}), whatever --until says.
 */
export const windowParams = (options: Pick<ReportOptions, 'since' | 'until' | 'now'>): { since_ns: bigint | null; until_ns: bigint } => {
  const until = toNs(options.until);
  const future = futureFromNs(options.now);
  return { since_ns: toNs(options.since), until_ns: until === null || until > future ? future : until };
};

/** The evidence, and the runs stamped in the future when there are any (the key is left out when there is none). */
const withFutureRuns = (evidence: ReportEvidence, future: FutureRuns | null): ReportEvidence => (future === null ? evidence : { ...evidence, future_runs: future });

/** The runs the window leaves out for starting in the future (and would hold otherwise): how many, and the first few. */
export async function futureRuns(rowsOf: ReportRows, options: Pick<ReportOptions, 'since' | 'until' | 'now'>): Promise<FutureRuns | null> {
  const future = futureFromNs(options.now);
  const since = toNs(options.since);
  const rows = await rowsOf('future-runs', { from_ns: since !== null && since > future ? since : future, to_ns: toNs(options.until) });
  if (rows.length === 0) return null;
  return {
    runs: rows[0]!.runs,
    from: iso(future),
    examples: rows.map((r) => ({ trace_id: r.trace_id, run_id: localRunId(r.run_id), start: iso(r.start_ns) })),
  };
}

/** What a report query may declare as a parameter, from the report's options. */
type ReportParamValues = { since_ns: bigint | null; until_ns: bigint; budget_ns: bigint };

/**
 * The parameters a report query takes from the report's options: those its header declares (the window for a
 * query over runs or over the facts, which carry their run's start; the budget). The same in
 * DuckDB and ClickHouse, whose renderings declare the same parameters.
 */
export function reportParams(options: Pick<ReportOptions, 'since' | 'until' | 'now' | 'budgetMs'>): (name: string) => Record<string, bigint | string | null> {
  const values: ReportParamValues = {
    ...windowParams(options),
    budget_ns: BigInt(Math.round((options.budgetMs ?? 1000) * 1e6)),
  };
  return (name) =>
    Object.fromEntries(
      query(name)
        .params.filter((p) => p.name in values)
        .map((p) => [p.name, values[p.name as keyof ReportParamValues]]),
    );
}

/** A row's group: '*' for the total, else its service, agent and framework. */
const groupKey = (row: { total: boolean; service: string | null; agent: string | null; framework: string | null }): string => (row.total ? '*' : JSON.stringify([row.service, row.agent, row.framework]));

/** The typed rows of the report's query `name` (its file name in queries/), from whichever engine prepared the report. */
export type ReportRows = <N extends keyof QueryRows>(name: N, params?: Record<string, bigint | string | null>) => Promise<QueryRows[N][]>;

/**
 * Place the rows of the aggregate queries into the report (no arithmetic: SQL
 * did it). The same for DuckDB's queries and ClickHouse's, rendered from one
 * model with the same columns.
 */
export async function assembleReport(rowsOf: ReportRows, options: ReportOptions, input: LeakReport['input'], source: 'files' | 'clickhouse' = 'files'): Promise<LeakReport> {
  const merged = new Map<string, Partial<GroupRow>>();
  const params = reportParams(options);
  for (const name of AGGREGATES) {
    for (const row of await rowsOf(name, params(name))) {
      const key = groupKey(row);
      merged.set(key, { ...merged.get(key), ...row });
    }
  }
  // Every aggregate gives a row for every group of the window's runs, and a total row (over no run too).
  const complete = (key: string, row: Partial<GroupRow> | undefined): GroupRow => {
    for (const name of AGGREGATES) {
      for (const c of query(name).columns) {
        if (row?.[c.name as keyof GroupRow] === undefined) throw new QueryColumnError(`${name}: no row for the group ${key === '*' ? 'total' : key}`);
      }
    }
    return row as GroupRow;
  };
  const totalRow = complete('*', merged.get('*'));
  // Rows of a by-tool or by-model query, split into the total's list ('*') and each group's.
  const listsOf = <R extends { total: boolean; service: string | null; agent: string | null; framework: string | null }, T>(rows: R[], item: (r: R) => T): Map<string, T[]> => {
    const lists = new Map<string, T[]>();
    for (const r of rows) {
      const key = groupKey(r);
      const list = lists.get(key);
      if (list === undefined) lists.set(key, [item(r)]);
      else list.push(item(r));
    }
    return lists;
  };
  const byTool = listsOf(
    await rowsOf('ghost-commits-by-tool'),
    (r): ToolGhostCommits => ({
      tool: r.tool,
      effect: r.effect,
      ghost_commits: r.ghost_commits,
      ghost_commits_inferred: r.ghost_commits_inferred,
      ghost_commits_possible: r.ghost_commits_possible,
      commits_prevented: r.commits_prevented,
    }),
  );
  const byModel = listsOf(
    await rowsOf('tokens-after-stop-by-model'),
    (r): ModelTokensAfterStop => ({
      model: r.model,
      input: r.input,
      output: r.output,
      ghost_tax_usd: r.ghost_tax_usd,
      priced: r.priced,
    }),
  );
  const groups: GroupFigures[] = [...merged.entries()]
    .filter(([key]) => key !== '*')
    .map(([key, partial]) => {
      const r = complete(key, partial);
      return {
        service: r.service,
        agent: r.agent,
        framework: r.framework,
        ...figures(r),
        ghost_commits_by_tool: byTool.get(key) ?? [],
        tokens_after_stop_by_model: byModel.get(key) ?? [],
      };
    });

  const findings: Finding[] = (await rowsOf('findings', { limit: BigInt(options.findingsLimit ?? 1000) })).map(findingOf);
  const byFramework: FrameworkScore[] = (await rowsOf('cancel-depth-by-framework')).map((r) => ({
    framework: r.framework,
    cancelled_runs: r.cancelled_runs,
    cancel_depth: { '0': r.depth_0, '1': r.depth_1, '2': r.depth_2, '3': r.depth_3, '4': r.depth_4 },
  }));
  const histogram = await rowsOf('cancel-latency-histogram');
  const buckets = (measure: string): HistogramBucket[] => histogram.filter((r) => r.measure === measure).map((r) => ({ upper_ms: r.upper_ms, runs: r.runs }));
  const timelineRows = await rowsOf('timeline');
  const timeline: LeakReport['timeline'] = {
    unit: timelineRows[0]?.unit === 'day' ? 'day' : 'hour',
    points: timelineRows.map((r) => ({
      time: iso(r.bucket_ns),
      service: r.service,
      cancelled_runs: r.cancelled_runs,
      ghost_commits: r.ghost_commits,
      tokens_after_stop: { input: r.input, output: r.output },
      ghost_tax_usd: r.ghost_tax_usd,
    })),
  };
  const window = { from: options.since?.toISOString() ?? null, to: options.until?.toISOString() ?? null };
  return {
    schema: REPORT_SCHEMA,
    window,
    evidence: withFutureRuns(reportEvidence(input, totalRow.runs, window, source), await futureRuns(rowsOf, options)),
    totals: { ...figures(totalRow), ghost_commits_by_tool: byTool.get('*') ?? [], tokens_after_stop_by_model: byModel.get('*') ?? [], cancel_depth_by_framework: byFramework },
    groups,
    findings,
    distributions: { cancel_ack_ms: buckets('ack'), cancel_settle_ms: buckets('settle') },
    timeline,
    input,
    prices: { as_of: options.prices?.as_of ?? null, source: options.pricesSource },
  };
}
