/**
 * Prometheus alerting rules over afterstop's metrics, generated like the
 * dashboards and committed as dashboards/afterstop-alerts.yml (a test fails
 * when it is stale; `promtool test rules` tests them, test/dashboards/).
 *
 * - live, over the instrumentation's metrics (SEMCONV.md, "Live metrics"), as
 *   the OpenTelemetry Prometheus exporter names them: a ghost commit of an
 *   irreversible or unknown tool, known or possible; the cancel
 *   acknowledgement's p95 over a threshold; tokens streamed after Stop over a rate;
 * - nightly, over what `leak-report` pushes: a budget the job was given
 *   exceeded, a report with nothing to judge, and a report that stopped coming.
 *
 * Each alert's description gives the measured value beside its limit, and its
 * `runbook_url` links docs/runbooks/<alert>.md (what it means, how to confirm
 * it, what to do, when to silence it).
 *
 * A counter series is born at its first increment (1): `increase()` needs two
 * samples, so the first ghost of a series is caught by the series being new.
 */

/** Where the rules are committed, under dashboards/. */
export const ALERTS_FILE = 'afterstop-alerts.yml';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: { summary: string; description: string; runbook_url: string };
}

export interface RuleGroup {
  name: string;
  interval?: string;
  rules: AlertRule[];
}

/** Thresholds the live rules use (documented in dashboards/README.md). */
export const ALERT_THRESHOLDS = {
  /** Cancel acknowledgement p95, seconds (METRICS.md's cancel-depth budget is 1 s). */
  ackP95Seconds: 1,
  /** Output tokens streamed after Stop, per minute, per agent and model. */
  tokensAfterStopPerMinute: 1000,
} as const;

/** Where the runbooks are published: docs/runbooks/<alert>.md of the repository's main branch. */
export const RUNBOOKS_URL = 'https://github.com/afterstop/afterstop/blob/main/docs/runbooks/';
const runbook = (alert: string): string => `${RUNBOOKS_URL}${alert}.md`;

const GHOSTS = 'afterstop_tool_commits_after_stop_total{afterstop_tool_effect=~"irreversible|unknown"}';
const POSSIBLE_GHOSTS = 'afterstop_tool_possible_ghost_commits_total{afterstop_tool_effect=~"irreversible|unknown"}';
/**
 * The ack histogram's buckets under either name: the JS Prometheus exporter writes `afterstop_cancel_ack_duration`
 * (its unit apart), OTLP into Prometheus or the Collector's exporter add the unit (`_seconds`).
 */
export const ACK_BUCKETS = '{__name__=~"afterstop_cancel_ack_duration(_seconds)?_bucket"}';
const BY_TOOL = 'job, afterstop_framework, gen_ai_agent_name, gen_ai_tool_name, afterstop_tool_effect';
/**
 * Commits counted by `counter` in the last 10 minutes, by tool: a series that grew, or one born in them (its first
 * commit): one with no sample in the day before (a missed scrape or a restart of Prometheus is not a birth).
 */
const commitsIn10m = (counter: string): string => `sum by (${BY_TOOL}) (increase(${counter}[10m])) > 0 or sum by (${BY_TOOL}) (${counter} unless last_over_time(${counter}[1d] offset 10m)) > 0`;
/**
 * A figure the alert's report pushed (its job and instance; with `byBudget`, the alert's budget too), as the
 * description prints it (`%g`: dollars stay dollars, where `humanize` would print 0.12 as 120m), or `fallback`
 * when the push holds none.
 */
const pushed = (metric: string, fallback: string, byBudget = false): string =>
  `{{ with printf \`${metric}{job=%q,instance=%q${byBudget ? ',budget=%q' : ''}}\` $labels.job $labels.instance${byBudget ? ' $labels.budget' : ''} | query }}{{ . | first | value | printf "%g" }}{{ else }}${fallback}{{ end }}`;

export const RULE_GROUPS: RuleGroup[] = [
  {
    name: 'afterstop-live',
    rules: [
      {
        alert: 'AfterstopGhostCommit',
        expr: commitsIn10m(GHOSTS),
        labels: { severity: 'critical' },
        annotations: {
          summary: 'An irreversible or unknown tool committed after the user pressed Stop',
          description:
            '{{ $labels.gen_ai_tool_name }} ({{ $labels.afterstop_tool_effect }}) of {{ $labels.afterstop_framework }} committed after Stop in the last 10 minutes: {{ $value | humanize }} (as Prometheus estimates the increase; the limit is 0) (job {{ $labels.job }}). Run `afterstop leak-report` and `afterstop explain` on its traces.',
          runbook_url: runbook('AfterstopGhostCommit'),
        },
      },
      {
        // Possible ghosts (METRICS.md §2): in flight at Stop, their outcome unseen. Never reported as none: an alert of
        // their own, a warning (the commit may have landed before Stop), since the known-ghost alert does not see them.
        alert: 'AfterstopPossibleGhostCommit',
        expr: commitsIn10m(POSSIBLE_GHOSTS),
        labels: { severity: 'warning' },
        annotations: {
          summary: 'An irreversible or unknown tool may have committed after the user pressed Stop',
          description:
            '{{ $labels.gen_ai_tool_name }} ({{ $labels.afterstop_tool_effect }}) of {{ $labels.afterstop_framework }} was in flight at Stop and its outcome was not seen; possible ghost commits in the last 10 minutes: {{ $value | humanize }} (as Prometheus estimates the increase; the limit is 0) (job {{ $labels.job }}). Confirm at the service whether it committed; `afterstop explain` draws the run.',
          runbook_url: runbook('AfterstopPossibleGhostCommit'),
        },
      },
      {
        alert: 'AfterstopCancelAckSlow',
        expr: `histogram_quantile(0.95, sum by (le, job, afterstop_framework) (rate(${ACK_BUCKETS}[10m]))) > ${ALERT_THRESHOLDS.ackP95Seconds}`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Stop takes too long to be acknowledged',
          description: `The p95 of the cancel acknowledgement of {{ $labels.afterstop_framework }} is {{ $value | humanizeDuration }} over the last 10 minutes, over the limit of ${ALERT_THRESHOLDS.ackP95Seconds}s (job {{ $labels.job }}).`,
          runbook_url: runbook('AfterstopCancelAckSlow'),
        },
      },
      {
        alert: 'AfterstopTokensAfterStop',
        expr: `sum by (job, afterstop_framework, gen_ai_agent_name, gen_ai_request_model) (rate(afterstop_model_output_tokens_after_stop_total[10m])) * 60 > ${ALERT_THRESHOLDS.tokensAfterStopPerMinute}`,
        for: '10m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Models keep streaming (and billing) after Stop',
          description: `{{ $labels.gen_ai_request_model }} streams {{ $value | humanize }} output tokens a minute after Stop for {{ $labels.afterstop_framework }}, over the limit of ${ALERT_THRESHOLDS.tokensAfterStopPerMinute} a minute (job {{ $labels.job }}).`,
          runbook_url: runbook('AfterstopTokensAfterStop'),
        },
      },
    ],
  },
  {
    name: 'afterstop-nightly',
    rules: [
      {
        alert: 'AfterstopBudgetExceeded',
        expr: 'max by (job, instance, budget) (afterstop_budget_exceeded) > 0',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'The nightly leak report exceeded a budget',
          description: `The last report of {{ $labels.job }}/{{ $labels.instance }} did not pass --{{ $labels.budget }}: it has ${pushed('afterstop_budget_value', 'no figure', true)}, the limit is ${pushed('afterstop_budget_limit', 'not pushed', true)}.`,
          runbook_url: runbook('AfterstopBudgetExceeded'),
        },
      },
      {
        // Nothing read is not nothing found: a nightly job pointed at the wrong place pushes zeros.
        alert: 'AfterstopReportNothingToJudge',
        expr: 'max by (job, instance, status) (afterstop_report_nothing_to_judge) > 0',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'The nightly leak report had nothing to judge',
          description: `The last report of {{ $labels.job }}/{{ $labels.instance }} read no agent run ({{ $labels.status }}: ${pushed('afterstop_report_read_spans', 'an unknown number of')} new spans read, ${pushed('afterstop_report_store_spans', 'an unknown number of')} in the store), where a night should judge at least one: its zeros are not an all-clear. Check where the job reads its traces.`,
          runbook_url: runbook('AfterstopReportNothingToJudge'),
        },
      },
      {
        alert: 'AfterstopReportStale',
        expr: 'time() - max by (job, instance) (afterstop_report_timestamp_seconds) > 2 * 86400',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'No leak report for two days',
          description: 'The last report of {{ $labels.job }}/{{ $labels.instance }} is {{ $value | humanizeDuration }} old, over the limit of 2 days.',
          runbook_url: runbook('AfterstopReportStale'),
        },
      },
    ],
  },
];

/** A YAML scalar: every string double-quoted as JSON writes it (a JSON string is a YAML one). */
const scalar = (value: string): string => JSON.stringify(value);

/** The rule file, as committed: YAML that Prometheus and promtool read. */
export function alertRulesYaml(groups: readonly RuleGroup[] = RULE_GROUPS): string {
  const out = ['# Generated by `npm run dashboards` from dashboards/src/alerts.ts: edit that.', 'groups:'];
  for (const g of groups) {
    out.push(`  - name: ${scalar(g.name)}`);
    if (g.interval !== undefined) out.push(`    interval: ${scalar(g.interval)}`);
    out.push('    rules:');
    for (const r of g.rules) {
      out.push(`      - alert: ${scalar(r.alert)}`, `        expr: ${scalar(r.expr)}`);
      if (r.for !== undefined) out.push(`        for: ${scalar(r.for)}`);
      out.push('        labels:', ...Object.entries(r.labels).map(([k, v]) => `          ${k}: ${scalar(v)}`));
      out.push('        annotations:', `          summary: ${scalar(r.annotations.summary)}`, `          description: ${scalar(r.annotations.description)}`, `          runbook_url: ${scalar(r.annotations.runbook_url)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
