import { listValue } from '@duckdb/node-api';
import { query } from './queries.js';
import { VERSION_SUFFIX, type PriceTable } from './prices.js';
import type { Store } from './store.js';
import { reportSpanFiles } from './span-files.js';
import {
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
  type SkippedInput,
} from './types.js';
import type { IngestSummary } from './ingest/ingest.js';

export interface ReportOptions {
  since?: Date | undefined;
  until?: Date | undefined;
  /** Cancel depth budget (METRICS.md §8). Default 1000 ms. */
  budgetMs?: number;
  prices: PriceTable;
  /** Where the prices came from: "shipped" or the file given. */
  pricesSource: string;
  /** At most this many findings. Default 1000. */
  findingsLimit?: number;
}

type Row = Record<string, unknown>;

/** DuckDB hands BIGINT over as bigint, ClickHouse 64-bit integers as strings; the report speaks JSON numbers. */
function num(value: unknown): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return 0;
}

/** A truth value as DuckDB (boolean) or ClickHouse (Bool, or UInt8 0/1) gives it. */
const truth = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 'true';

function maybe(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}

function distribution(row: Row, prefix: string): Distribution {
  return {
    count: num(row[`${prefix}_count`]),
    p50: maybe(row[`${prefix}_p50`]),
    p95: maybe(row[`${prefix}_p95`]),
    p99: maybe(row[`${prefix}_p99`]),
    max: maybe(row[`${prefix}_max`]),
  };
}

/** The prepare chain after report_spans ({@link prepareReportSpans}). */
export const PREPARE = [
  'prepare-runs',
  'prepare-tool-calls',
  'prepare-ghost-commits',
  'prepare-tool-outcomes',
  'prepare-tokens',
  'prepare-post-cancel-errors',
  'prepare-replays',
  'prepare-steers',
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
  'steering',
  'cancel-depth',
  'orphan-processes',
] as const;

/** Place one group's rows of every aggregate query into the report's figures (no arithmetic: SQL did it). */
function figures(r: Row): Figures {
  return {
    runs: num(r['runs']),
    cancelled_runs: num(r['cancelled_runs']),
    cancelled_runs_inferred: num(r['cancelled_runs_inferred']),
    unended_runs: num(r['unended_runs']),
    cancel_ack_ms: distribution(r, 'ack'),
    cancel_settle_ms: distribution(r, 'settle'),
    unacknowledged_cancels: num(r['unacknowledged_cancels']),
    ghost_commits: num(r['ghost_commits']),
    ghost_commits_inferred: num(r['ghost_commits_inferred']),
    ghost_commits_compensated: num(r['ghost_commits_compensated']),
    ghost_commits_alarming: num(r['ghost_commits_alarming']),
    ghost_commits_possible: num(r['ghost_commits_possible']),
    ghost_commits_possible_alarming: num(r['ghost_commits_possible_alarming']),
    orphan_tool_calls: num(r['orphan_tool_calls']),
    repaired_tool_calls: num(r['repaired_tool_calls']),
    late_results: num(r['late_results']),
    orphan_processes: num(r['orphan_processes']),
    tokens_after_stop: {
      input: num(r['input']),
      output: num(r['output']),
      observed_calls: num(r['observed_calls']),
      estimated_calls: num(r['estimated_calls']),
      calls_without_usage: num(r['calls_without_usage']),
      unpriced_calls: num(r['unpriced_calls']),
      calls_started_after_stop: num(r['calls_started_after_stop']),
    },
    ghost_tax_usd: num(r['ghost_tax_usd']),
    post_cancel_errors: { orphan_tool_call_rejected: num(r['orphan_tool_call_rejected']), other: num(r['other']) },
    cleanup_errors: num(r['cleanup_errors']),
    replay_duplicates: num(r['replay_duplicates']),
    replayed_conversations: num(r['replayed_conversations']),
    steering: { inject_ms: distribution(r, 'inject'), dropped: num(r['dropped']), violations: num(r['violations']) },
    cancel_depth: {
      '0': num(r['depth_0']),
      '1': num(r['depth_1']),
      '2': num(r['depth_2']),
      '3': num(r['depth_3']),
      '4': num(r['depth_4']),
    },
  };
}

/** A run's id within its trace, from the store's key `<trace id>:<run id>`. */
export const localRunId = (key: string): string => key.slice(key.indexOf(':') + 1);

const iso = (ns: unknown): string => new Date(Number(BigInt(String(ns)) / 1_000_000n)).toISOString();
/** A time as ns since the epoch (NULL for an open end). */
export const toNs = (date: Date | undefined): bigint | null => (date === undefined ? null : BigInt(date.getTime()) * 1_000_000n);

/** The price table as the temporary table report_prices, which prepare-tokens.sql reads. */
export async function loadPriceTable(store: Store, prices: PriceTable): Promise<void> {
  // One JSON parameter: it binds the same whether the table is empty or not.
  const rows = Object.entries(prices.models).map(([model, p]) => ({ model, input: p.input_usd_per_mtok, output: p.output_usd_per_mtok }));
  await store.run(query('load-prices'), { prices: JSON.stringify(rows) });
}

/** report_spans: the spans of the window's days (and of the runs linked to it), read from their Parquet files (span-files.ts). */
export async function prepareReportSpans(store: Store, sinceNs: bigint | null, untilNs: bigint | null): Promise<void> {
  const files = await reportSpanFiles(store, sinceNs, untilNs);
  if (files.length > 0) {
    await store.run(query('prepare-spans'), { files: listValue(files) });
    await store.run(query('prepare-spans-view'));
  } else {
    await store.run(query('prepare-spans-empty'));
  }
}

/** The parameters the prepare queries take from the report's options (the same in DuckDB and ClickHouse). */
export function prepareParams(options: Pick<ReportOptions, 'since' | 'until' | 'budgetMs'>): (name: string) => Record<string, bigint | string | null> {
  const params: Record<string, Record<string, bigint | string | null>> = {
    'prepare-runs': { since_ns: toNs(options.since), until_ns: toNs(options.until) },
    'prepare-tokens': { version_suffix: VERSION_SUFFIX },
    'prepare-cancel-depth': { budget_ns: BigInt(Math.round((options.budgetMs ?? 1000) * 1e6)) },
  };
  return (name) => params[name] ?? {};
}

/** The prepare queries, in order, with the parameters they take from the report's options. */
export async function prepareReport(store: Store, options: Pick<ReportOptions, 'since' | 'until' | 'budgetMs' | 'prices'>): Promise<void> {
  await loadPriceTable(store, options.prices);
  await prepareReportSpans(store, toNs(options.since), toNs(options.until));
  const params = prepareParams(options);
  for (const name of PREPARE) await store.run(query(name), params(name));
}

async function skippedLines(store: Store, files: readonly string[]): Promise<SkippedInput[]> {
  if (files.length === 0) return [];
  const rows = await store.rows(query('skipped-lines'), { files: listValue([...files]) });
  return rows.map((r) => ({ file: String(r['file']), line: num(r['line']), reason: String(r['reason']) }));
}

/**
 * Compute the leak report over what the store holds, for runs that start in
 * the window. Each figure is computed by its query in queries/; this only
 * places the results.
 */
export async function buildReport(
  store: Store,
  options: ReportOptions,
  ingested: IngestSummary,
): Promise<LeakReport> {
  await prepareReport(store, options);
  const skipped = await skippedLines(store, ingested.paths);
  return assembleReport((name, params) => store.rows(query(name), params as Record<string, bigint>), options, {
    files: ingested.files,
    files_read: ingested.read,
    spans_read: ingested.spansRead,
    spans_added: ingested.spansAdded,
    skipped,
    skipped_count: skipped.length,
  });
}

/** A row's group: '*' for the total, else its service, agent and framework. */
const groupKey = (row: Row): string => (truth(row['total']) ? '*' : JSON.stringify([row['service'], row['agent'], row['framework']]));

/** The rows of the report's query `name` (its file name in queries/), from whichever engine prepared the report. */
export type ReportRows = (name: string, params?: Record<string, unknown>) => Promise<Row[]>;

/**
 * Place the rows of the aggregate queries into the report (no arithmetic: SQL
 * did it). The same for DuckDB's queries and ClickHouse's, which give the
 * same columns.
 */
export async function assembleReport(rowsOf: ReportRows, options: ReportOptions, input: LeakReport['input']): Promise<LeakReport> {
  const merged = new Map<string, Row>();
  for (const name of AGGREGATES) {
    for (const row of await rowsOf(name)) {
      const key = groupKey(row);
      merged.set(key, { ...merged.get(key), ...row });
    }
  }
  const totalRow = merged.get('*') ?? {};
  // Rows of a by-tool or by-model query, split into the total's list ('*') and each group's.
  const listsOf = async <T>(name: string, item: (r: Row) => T): Promise<Map<string, T[]>> => {
    const lists = new Map<string, T[]>();
    for (const r of await rowsOf(name)) {
      const key = groupKey(r);
      const list = lists.get(key);
      if (list === undefined) lists.set(key, [item(r)]);
      else list.push(item(r));
    }
    return lists;
  };
  const byTool = await listsOf('ghost-commits-by-tool', (r): ToolGhostCommits => ({
    tool: String(r['tool']),
    effect: String(r['effect']),
    ghost_commits: num(r['ghost_commits']),
    ghost_commits_inferred: num(r['ghost_commits_inferred']),
    ghost_commits_possible: num(r['ghost_commits_possible']),
  }));
  const byModel = await listsOf('tokens-after-stop-by-model', (r): ModelTokensAfterStop => ({
    model: String(r['model']),
    input: num(r['input']),
    output: num(r['output']),
    ghost_tax_usd: num(r['ghost_tax_usd']),
    priced: truth(r['priced']),
  }));
  const groups: GroupFigures[] = [...merged.entries()]
    .filter(([key]) => key !== '*')
    .map(([key, r]) => ({
      service: (r['service'] as string | null) ?? null,
      agent: (r['agent'] as string | null) ?? null,
      framework: (r['framework'] as string | null) ?? null,
      ...figures(r),
      ghost_commits_by_tool: byTool.get(key) ?? [],
      tokens_after_stop_by_model: byModel.get(key) ?? [],
    }));

  const findings: Finding[] = (await rowsOf('findings', { limit: BigInt(options.findingsLimit ?? 1000) })).map((r) => ({
    kind: String(r['kind']),
    severity: num(r['severity']),
    trace_id: String(r['trace_id']),
    // The run's id beside its trace id: the store keys runs by both (run_key in macros.sql).
    run_id: localRunId(String(r['run_id'])),
    conversation_id: (r['conversation_id'] as string | null) ?? null,
    tool: (r['tool'] as string | null) ?? null,
    time: iso(r['time_ns']),
    detail: String(r['detail']),
  }));
  const byFramework: FrameworkScore[] = (await rowsOf('cancel-depth-by-framework')).map((r) => ({
    framework: (r['framework'] as string | null) ?? null,
    cancelled_runs: num(r['cancelled_runs']),
    cancel_depth: { '0': num(r['depth_0']), '1': num(r['depth_1']), '2': num(r['depth_2']), '3': num(r['depth_3']), '4': num(r['depth_4']) },
  }));
  const histogram = await rowsOf('cancel-latency-histogram');
  const buckets = (measure: string): HistogramBucket[] =>
    histogram.filter((r) => r['measure'] === measure).map((r) => ({ upper_ms: r['upper_ms'] === null ? null : num(r['upper_ms']), runs: num(r['runs']) }));
  const timelineRows = await rowsOf('timeline');
  const timeline: LeakReport['timeline'] = {
    unit: timelineRows[0]?.['unit'] === 'day' ? 'day' : 'hour',
    points: timelineRows.map((r) => ({
      time: iso(r['bucket_ns']),
      service: (r['service'] as string | null) ?? null,
      cancelled_runs: num(r['cancelled_runs']),
      ghost_commits: num(r['ghost_commits']),
      tokens_after_stop: { input: num(r['input']), output: num(r['output']) },
      ghost_tax_usd: num(r['ghost_tax_usd']),
    })),
  };
  return {
    schema: REPORT_SCHEMA,
    window: { from: options.since?.toISOString() ?? null, to: options.until?.toISOString() ?? null },
    totals: { ...figures(totalRow), ghost_commits_by_tool: byTool.get('*') ?? [], tokens_after_stop_by_model: byModel.get('*') ?? [], cancel_depth_by_framework: byFramework },
    groups,
    findings,
    distributions: { cancel_ack_ms: buckets('ack'), cancel_settle_ms: buckets('settle') },
    timeline,
    input,
    prices: { as_of: options.prices.as_of ?? null, source: options.pricesSource },
  };
}
