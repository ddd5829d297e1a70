import { terminalSafe } from '../render/text-table.js';
import type { Distribution, Figures, GroupFigures, LeakReport } from '../types.js';

/**
 * The leak report as Prometheus metrics: one family per figure of
 * METRICS.md, gauges all (a report is a snapshot of its window, not a
 * counter that only grows, so no `_total`), base units in the names
 * (`_seconds`, `_usd`), labels `service`, `agent`, `framework` on the
 * per-group figures and `tool` / `model` where they apply. Tools and models
 * are capped to the `maxLabelValues` largest; the rest is summed as `other`.
 */
export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  labelNames: string[];
  samples: MetricSample[];
}

/** A budget the nightly job was given (`--max-ghost-commits` ...), and whether the report is within it. */
export interface BudgetStatus {
  /** The option, without its dashes (`max-ghost-commits`). */
  budget: string;
  limit: number;
  /** The report's figure; null when it has none (a p95 of no latency). */
  actual: number | null;
  /** Not passed: above it, or a spend the figure cannot hold (`reason`). */
  exceeded: boolean;
  /** Why it is not passed though the figure is within it: the ghost tax's unpriced spend, the tokens' unreported usage. */
  reason?: string;
  /** What of its figure is not known, in words, one entry per cause of `reason` ("model calls after Stop had no price"). */
  unknown?: readonly string[];
  /** The report's figures it counts (the HTML report's `data-figure` keys): the first its own, the others counted in it too. */
  figures: readonly string[];
}

export interface MetricOptions {
  /** Distinct tools or models kept per family; the rest becomes `other`. Default 20. */
  maxLabelValues?: number;
  /** The budgets given, as `afterstop_budget_limit`, `afterstop_budget_value` and `afterstop_budget_exceeded` (for the nightly alerts). */
  budgets?: readonly BudgetStatus[];
  /** The report's time, in ms (default now). */
  now?: number;
}

export const GROUP_LABELS = ['service', 'agent', 'framework'] as const;
/** The tools or models past the cap, summed (a tool really called `other` is summed with them). */
export const OTHER = 'other';
/** A group without a service, agent or framework (an empty label value is no label to Prometheus). */
export const NONE = '(none)';
/** The effect classes of SEMCONV.md; anything else a foreign trace says is `other`. */
const EFFECTS = new Set(['read', 'idempotent', 'reversible', 'irreversible', 'unknown']);

const groupLabels = (g: GroupFigures): Record<string, string> => ({ service: g.service ?? NONE, agent: g.agent ?? NONE, framework: g.framework ?? NONE });

/** A figure of every group: one sample per (service, agent, framework). */
function perGroup(report: LeakReport, name: string, help: string, value: (f: Figures) => number): MetricFamily {
  return { name, help, labelNames: [...GROUP_LABELS], samples: report.groups.map((g) => ({ labels: groupLabels(g), value: value(g) })) };
}

/** A figure of every group split by one more label. */
function perGroupBy(report: LeakReport, name: string, help: string, label: string, values: (f: Figures) => Record<string, number>): MetricFamily {
  return {
    name,
    help,
    labelNames: [...GROUP_LABELS, label],
    samples: report.groups.flatMap((g) => Object.entries(values(g)).map(([v, value]) => ({ labels: { ...groupLabels(g), [label]: v }, value }))),
  };
}

const STATS = ['p50', 'p95', 'p99', 'max'] as const;

/**
 * A latency distribution in seconds: a sample per statistic (`stat` = p50,
 * p95, p99, max; not `quantile`, which Prometheus keeps for summaries) and
 * the count beside it.
 */
function distribution(report: LeakReport, name: string, help: string, of: (f: Figures) => Distribution): MetricFamily[] {
  const samples: MetricSample[] = [];
  for (const g of report.groups) {
    const d = of(g);
    for (const stat of STATS) {
      const ms = d[stat];
      if (ms !== null) samples.push({ labels: { ...groupLabels(g), stat }, value: ms / 1000 });
    }
  }
  return [
    { name: `${name}_seconds`, help: `${help} (stat: p50, p95, p99, max)`, labelNames: [...GROUP_LABELS, 'stat'], samples },
    perGroup(report, `${name}_measured_runs`, `${help}: how many runs the statistics are over`, (f) => of(f).count),
  ];
}

/** The `max` label values of the largest total `weight` over all rows (ties by name); the rest become `other`. */
export function keptValues<T>(rows: T[], key: (row: T) => string, weight: (row: T) => number, max: number): Set<string> {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(key(row), (totals.get(key(row)) ?? 0) + weight(row));
  return new Set(
    [...totals.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, Math.max(0, max))
      .map(([k]) => k),
  );
}

/** Add `value` to the sample with these labels (values past the cap share one). */
function add(samples: Map<string, MetricSample>, labels: Record<string, string>, value: number): void {
  const key = JSON.stringify(labels);
  const sample = samples.get(key) ?? { labels, value: 0 };
  sample.value += value;
  samples.set(key, sample);
}

export function metricFamilies(report: LeakReport, options: MetricOptions = {}): MetricFamily[] {
  const max = options.maxLabelValues ?? 20;
  const t = report.totals;
  const families: MetricFamily[] = [
    perGroup(report, 'afterstop_runs', 'Agent runs in the report window', (f) => f.runs),
    perGroup(report, 'afterstop_cancelled_runs', 'Runs cancelled (Stop pressed), observed or inferred', (f) => f.cancelled_runs),
    perGroup(report, 'afterstop_cancelled_runs_inferred', 'Cancelled runs known only from foreign traces (inferred)', (f) => f.cancelled_runs_inferred),
    perGroup(report, 'afterstop_unended_runs', 'Runs whose root span was never exported (hung or died)', (f) => f.unended_runs),
    ...distribution(report, 'afterstop_cancel_ack', 'Time from the cancel request to its acknowledgement', (f) => f.cancel_ack_ms),
    ...distribution(report, 'afterstop_cancel_settle', 'Time from the cancel request until everything in flight had ended', (f) => f.cancel_settle_ms),
    perGroup(report, 'afterstop_unacknowledged_cancels', 'Cancel requests never acknowledged', (f) => f.unacknowledged_cancels),
    perGroup(report, 'afterstop_ghost_commits', 'Side effects known to have committed after Stop', (f) => f.ghost_commits),
    perGroup(
      report,
      'afterstop_ghost_commits_possible',
      'Side effects in flight at Stop whose outcome was not seen (answer lost after Stop, the tool never ended, or its effect out of sight)',
      (f) => f.ghost_commits_possible,
    ),
    perGroup(report, 'afterstop_ghost_commits_possible_alarming', 'Possible ghost commits of irreversible or unknown effects', (f) => f.ghost_commits_possible_alarming),
    perGroup(report, 'afterstop_ghost_commits_confirmed', 'Ghost commits a service witnessed: its own spans showed the effect after Stop beyond the clock bound', (f) => f.ghost_commits_confirmed),
    perGroup(report, 'afterstop_ghost_commits_ruled_out', "Commits the client's evidence alone would count that a service's spans ruled out (failed, or over before Stop)", (f) => f.ghost_commits_ruled_out),
    perGroup(report, 'afterstop_ghost_commits_inferred', 'Ghost commits inferred from foreign tool spans', (f) => f.ghost_commits_inferred),
    perGroup(report, 'afterstop_ghost_commits_compensated', 'Ghost commits undone by a compensating action', (f) => f.ghost_commits_compensated),
    perGroup(report, 'afterstop_ghost_commits_alarming', 'Ghost commits of irreversible or unknown effects', (f) => f.ghost_commits_alarming),
    perGroup(report, 'afterstop_orphan_tool_calls', 'Tool calls of cancelled runs whose result never reached the conversation', (f) => f.orphan_tool_calls),
    perGroup(report, 'afterstop_repaired_tool_calls', 'Tool calls of cancelled runs covered by a history repair', (f) => f.repaired_tool_calls),
    perGroup(report, 'afterstop_late_results', 'Tool results that came back after the run stopped listening', (f) => f.late_results),
    perGroup(report, 'afterstop_orphan_processes', 'Child processes still alive after their run ended', (f) => f.orphan_processes),
    perGroupBy(report, 'afterstop_after_stop_tokens', 'Tokens billed after Stop', 'direction', (f) => ({ input: f.tokens_after_stop.input, output: f.tokens_after_stop.output })),
    perGroupBy(report, 'afterstop_after_stop_model_calls', 'Model calls with tokens after Stop, by how their figure was obtained', 'how', (f) => ({
      observed: f.tokens_after_stop.observed_calls,
      estimated: f.tokens_after_stop.estimated_calls,
      unknown: f.tokens_after_stop.calls_without_usage,
    })),
    perGroup(report, 'afterstop_after_stop_unpriced_model_calls', 'Model calls with tokens after Stop whose model has no price: their cost is missing from the ghost tax', (f) => f.tokens_after_stop.unpriced_calls),
    perGroupBy(report, 'afterstop_after_stop_unpriced_tokens', 'Tokens billed after Stop by model calls without a price: their cost is missing from the ghost tax', 'direction', (f) => ({
      input: f.tokens_after_stop.unpriced_tokens.input,
      output: f.tokens_after_stop.unpriced_tokens.output,
    })),
    perGroup(report, 'afterstop_model_calls_started_after_stop', 'Model calls a cancelled run started after Stop', (f) => f.tokens_after_stop.calls_started_after_stop),
    perGroup(report, 'afterstop_ghost_tax_usd', 'Cost of the tokens billed after Stop', (f) => f.ghost_tax_usd),
    perGroupBy(report, 'afterstop_post_cancel_errors', 'Next runs of a cancelled run that failed, by root cause', 'cause', (f) => ({ ...f.post_cancel_errors })),
    perGroup(report, 'afterstop_cleanup_errors', 'Errors of cancelled runs after the cancel request, other than the cancel itself', (f) => f.cleanup_errors),
    perGroup(report, 'afterstop_replay_duplicates', 'Side effects committed again by a replay', (f) => f.replay_duplicates),
    perGroup(report, 'afterstop_replayed_conversations', 'Conversations with a replayed side effect', (f) => f.replayed_conversations),
    perGroup(report, 'afterstop_commits_prevented', "Side effects the guard's commit fence refused after Stop (nothing was sent)", (f) => f.commits_prevented),
    perGroup(report, 'afterstop_commits_prevented_alarming', 'Prevented commits of irreversible or unknown effects', (f) => f.commits_prevented_alarming),
    perGroup(report, 'afterstop_replays_deduplicated', "Replays whose request carried the earlier commit's idempotency key (the guard): done once by a service that honours it", (f) => f.replays_deduplicated),
    perGroup(report, 'afterstop_deadline_cancels', 'Runs cancelled by a deadline (cancel source timeout)', (f) => f.deadline_cancels),
    perGroup(report, 'afterstop_uninstrumented_runs', 'Runs beside agent frameworks, agent SDKs or MCP clients afterstop does not instrument: their figures are lower bounds', (f) => f.uninstrumented.runs),
    ...distribution(report, 'afterstop_steer_inject', 'Time from a steering message queued to its injection', (f) => f.steering.inject_ms),
    perGroup(report, 'afterstop_steers_dropped', 'Steering messages never injected', (f) => f.steering.dropped),
    perGroup(report, 'afterstop_steer_violations', 'Steering messages injected inside a tool batch', (f) => f.steering.violations),
    perGroupBy(report, 'afterstop_cancel_depth_runs', 'Cancelled runs by cancel depth (0 to 4, the scorecard)', 'depth', (f) => ({ ...f.cancel_depth })),
  ];

  // Ghost commits by group, tool, effect class and how they are known (observed commits, inferred from
  // foreign tool spans, or possible: outcome not seen); the tools with the most over all groups kept, the rest `other`.
  const tools = keptValues(
    t.ghost_commits_by_tool,
    (r) => r.tool,
    (r) => r.ghost_commits + r.ghost_commits_inferred + r.ghost_commits_possible + r.commits_prevented,
    max,
  );
  const byTool = new Map<string, MetricSample>();
  for (const g of report.groups) {
    for (const r of g.ghost_commits_by_tool) {
      for (const [how, value] of [
        ['observed', r.ghost_commits],
        ['inferred', r.ghost_commits_inferred],
        ['possible', r.ghost_commits_possible],
      ] as const) {
        const labels = { ...groupLabels(g), tool: tools.has(r.tool) ? r.tool : OTHER, effect: EFFECTS.has(r.effect) ? r.effect : 'other', how };
        add(byTool, labels, value);
      }
    }
  }
  // Prevented commits by group, tool and effect class (the same tools kept).
  const prevented = new Map<string, MetricSample>();
  for (const g of report.groups) {
    for (const r of g.ghost_commits_by_tool) {
      add(prevented, { ...groupLabels(g), tool: tools.has(r.tool) ? r.tool : OTHER, effect: EFFECTS.has(r.effect) ? r.effect : 'other' }, r.commits_prevented);
    }
  }
  families.push({
    name: 'afterstop_commits_prevented_by_tool',
    help: "Side effects the guard's commit fence refused after Stop, by tool and effect class",
    labelNames: [...GROUP_LABELS, 'tool', 'effect'],
    samples: [...prevented.values()],
  });
  families.push({
    name: 'afterstop_ghost_commits_by_tool',
    help: 'Side effects committed after Stop, by tool, effect class and how they are known',
    labelNames: [...GROUP_LABELS, 'tool', 'effect', 'how'],
    samples: [...byTool.values()],
  });

  // Tokens after Stop and their cost by group and model; the models with the most tokens over all groups kept.
  const models = keptValues(
    t.tokens_after_stop_by_model,
    (r) => r.model,
    (r) => r.input + r.output,
    max,
  );
  const tokens = new Map<string, MetricSample>();
  const usd = new Map<string, MetricSample>();
  for (const g of report.groups) {
    for (const r of g.tokens_after_stop_by_model) {
      const labels = { ...groupLabels(g), model: models.has(r.model) ? r.model : OTHER };
      add(tokens, { ...labels, direction: 'input' }, r.input);
      add(tokens, { ...labels, direction: 'output' }, r.output);
      add(usd, labels, r.ghost_tax_usd);
    }
  }
  families.push(
    { name: 'afterstop_after_stop_tokens_by_model', help: 'Tokens billed after Stop, by model', labelNames: [...GROUP_LABELS, 'model', 'direction'], samples: [...tokens.values()] },
    { name: 'afterstop_ghost_tax_by_model_usd', help: 'Cost of the tokens billed after Stop, by model', labelNames: [...GROUP_LABELS, 'model'], samples: [...usd.values()] },
    {
      name: 'afterstop_cancel_depth_by_framework_runs',
      help: 'The cancel-depth scorecard: cancelled runs by framework and depth',
      labelNames: ['framework', 'depth'],
      samples: t.cancel_depth_by_framework.flatMap((s) => Object.entries(s.cancel_depth).map(([depth, value]) => ({ labels: { framework: s.framework ?? NONE, depth }, value }))),
    },
    { name: 'afterstop_report_skipped_input_lines', help: 'Input lines this report could not read (see the report input.skipped)', labelNames: [], samples: [{ labels: {}, value: report.input.skipped_count }] },
    { name: 'afterstop_report_read_spans', help: 'Spans this invocation read from its inputs (new to the store)', labelNames: [], samples: [{ labels: {}, value: report.input.spans_read }] },
    // Nothing read is not nothing found: a report over no run says so, whatever its other figures (all 0).
    {
      name: 'afterstop_report_nothing_to_judge',
      help: 'The report had no agent run to judge (no span read, or no run in the window): its zeros are not an all-clear',
      labelNames: ['status'],
      samples: [{ labels: { status: report.evidence.status }, value: report.evidence.status === 'runs' ? 0 : 1 }],
    },
    { name: 'afterstop_report_store_spans', help: 'Spans the report could draw on (in the store, or read from ClickHouse)', labelNames: [], samples: [{ labels: {}, value: report.input.spans_in_store }] },
    { name: 'afterstop_report_findings', help: 'Findings listed by the report', labelNames: [], samples: [{ labels: {}, value: report.findings.length }] },
    { name: 'afterstop_report_timestamp_seconds', help: 'When the report was made (Unix time): a stale dashboard shows it', labelNames: [], samples: [{ labels: {}, value: (options.now ?? Date.now()) / 1000 }] },
  );
  if (options.budgets !== undefined && options.budgets.length > 0) {
    families.push(
      {
        name: 'afterstop_budget_limit',
        help: 'A budget the nightly job was given (leak-report --max-...)',
        labelNames: ['budget'],
        samples: options.budgets.map((b) => ({ labels: { budget: b.budget }, value: b.limit })),
      },
      {
        // The measured figure beside its limit, for the alert's text (absent when the report has none: a p95 of no latency).
        name: 'afterstop_budget_value',
        help: 'The report figure a budget judges (leak-report --max-...), beside afterstop_budget_limit',
        labelNames: ['budget'],
        samples: options.budgets.filter((b) => b.actual !== null).map((b) => ({ labels: { budget: b.budget }, value: b.actual as number })),
      },
      {
        name: 'afterstop_budget_exceeded',
        help: '1 when the report exceeds the budget (the job exits 1), else 0',
        labelNames: ['budget'],
        samples: options.budgets.map((b) => ({ labels: { budget: b.budget }, value: b.exceeded ? 1 : 0 })),
      },
    );
  }
  const bound = (name: string, iso: string | null): void => {
    if (iso !== null) families.push({ name, help: `The report window's ${name.endsWith('start_seconds') ? 'start' : 'end'} (Unix time)`, labelNames: [], samples: [{ labels: {}, value: Date.parse(iso) / 1000 }] });
  };
  bound('afterstop_report_window_start_seconds', report.window.from);
  bound('afterstop_report_window_end_seconds', report.window.to);
  // Trace content as label values: control characters (an escape sequence in a tool name) shown as U+FFFD,
  // as the terminal report shows them, so that reading the textfile cannot rewrite a terminal.
  return families.map((f) => ({ ...f, samples: f.samples.map((x) => ({ ...x, labels: Object.fromEntries(Object.entries(x.labels).map(([k, v]) => [k, terminalSafe(v)])) })) }));
}
