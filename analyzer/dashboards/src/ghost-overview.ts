import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { bars, datasourceVariable, FILTER, labelVariable, stat, table, timeseries } from './panels.js';

export const GHOST_OVERVIEW_UID = 'afterstop-ghost-overview';

/** The live series' filter: their labels are the instrumentation's attributes (no service: that is the scrape's job). */
const LIVE_FILTER = 'gen_ai_agent_name=~"$agent", afterstop_framework=~"$framework"';
const LIVE_NOTE = (what: string): string => `${what} Live: from the instrumentation's own metrics (SEMCONV.md, "Live metrics"), scraped from the app; the service variable does not apply (a scrape job is a service).`;

/**
 * A counter's growth over the dashboard's range, each series counted whole when it was born in the range (a
 * counter series starts at its first increment, which increase() cannot see), also when its app has stopped.
 */
const liveTotal = (metric: string): string => {
  const m = `${metric}{${LIVE_FILTER}}`;
  // Range functions: an app that stopped (its series gone stale) still counts for the range it ran in.
  // A series seen in the range before it (a missed scrape at its start is not a birth): its increase; else all of it.
  const before = `last_over_time(${m}[$__range] offset $__range)`;
  return `(increase(${m}[$__range]) and ${before} or (max_over_time(${m}[$__range]) unless ${before}))`;
};

/**
 * "Ghost execution overview": what agents kept doing after Stop, from the
 * metrics `afterstop leak-report --push-gateway` publishes (one report a
 * night: the latest value is the last report's), beside a live row from the
 * instrumentation's own metrics.
 */
export function ghostOverview(): DashboardBuilder {
  return new DashboardBuilder('afterstop: ghost execution overview')
    .uid(GHOST_OVERVIEW_UID)
    .description('What AI agents kept doing after their user pressed Stop: cost, side effects, broken histories, and how deep each framework cancels. From the metrics of afterstop leak-report.')
    .tags(['afterstop', 'ai-agents'])
    .editable()
    .refresh('1h')
    .time({ from: 'now-30d', to: 'now' })
    .withVariable(datasourceVariable('prometheus'))
    .withVariable(labelVariable('service', 'Service'))
    .withVariable(labelVariable('agent', 'Agent'))
    .withVariable(labelVariable('framework', 'Framework'))
    .withRow(new RowBuilder('Live, from the instrumentation (over the dashboard’s range)'))
    .withPanel(
      stat({
        title: 'Ghost commits after Stop (live)',
        description: LIVE_NOTE('Side effects known to have committed after Stop, as the instrumentation recorded them, over the dashboard’s range (afterstop_tool_commits_after_stop_total).'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_tool_commits_after_stop_total')})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Possible ghost commits (live)',
        description: LIVE_NOTE('Requests that reached their service and whose answer was lost after Stop, and tools in flight at Stop whose effect was out of sight (an MCP tools/call), over the dashboard’s range.'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_tool_possible_ghost_commits_total')})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Cancel requests (live)',
        description: LIVE_NOTE('Stops requested, over the dashboard’s range.'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_cancel_requests_total')})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Orphaned tool calls (live)',
        description: LIVE_NOTE('Tool calls of stopped runs whose result did not reach the conversation when they ended (before any history repair), over the dashboard’s range.'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_tool_orphaned_calls_total')})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Output tokens after Stop (live)',
        description: LIVE_NOTE('Model output tokens billed after Stop, over the dashboard’s range.'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_model_output_tokens_after_stop_total')})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Model calls after Stop (live)',
        description: LIVE_NOTE('Model calls started after Stop (the loop went on), over the dashboard’s range.'),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_model_calls_after_stop_total')})` }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Ghost commits after Stop by tool (live)',
        description: LIVE_NOTE('Ghost commits per minute, by tool and effect class (an irreversible or unknown one fires AfterstopGhostCommit).'),
        unit: 'short',
        queries: [
          { expr: `sum by (gen_ai_tool_name, afterstop_tool_effect) (rate(afterstop_tool_commits_after_stop_total{${LIVE_FILTER}}[$__rate_interval])) * 60`, legend: '{{gen_ai_tool_name}} ({{afterstop_tool_effect}})' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Cancel ack latency p95 by framework (live)',
        description: LIVE_NOTE('The 95th percentile of the time from a cancel request to its acknowledgement, by framework (over 1 s for 5 minutes fires AfterstopCancelAckSlow).'),
        unit: 's',
        queries: [
          { expr: `histogram_quantile(0.95, sum by (le, afterstop_framework) (rate({__name__=~"afterstop_cancel_ack_duration(_seconds)?_bucket", ${LIVE_FILTER}}[$__rate_interval])))`, legend: '{{afterstop_framework}}' },
        ],
      }),
    )
    .withRow(new RowBuilder('Cost after Stop'))
    .withPanel(
      stat({
        title: 'Ghost tax',
        description: 'Cost of the priced tokens billed after Stop in the last report (@pydantic/genai-prices, or the --prices table): the unpriced calls beside it are missing from it.',
        unit: 'currencyUSD',
        queries: [{ expr: `sum(afterstop_ghost_tax_usd{${FILTER}})` }],
      }),
    )
    .withPanel(stat({ title: 'Cancelled runs', description: 'Runs whose user pressed Stop, in the last report.', unit: 'short', queries: [{ expr: `sum(afterstop_cancelled_runs{${FILTER}})` }] }))
    .withPanel(
      stat({
        title: 'Model calls started after Stop',
        description: 'Model calls a cancelled run started after Stop: the loop went on.',
        unit: 'short',
        queries: [{ expr: `sum(afterstop_model_calls_started_after_stop{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Unpriced model calls after Stop',
        description:
          'Model calls with tokens after Stop that had no price (a model neither @pydantic/genai-prices nor the --prices table knows), in the last report: their cost is missing from the ghost tax, and --max-ghost-tax-usd is not passed on them.',
        unit: 'short',
        queries: [{ expr: `sum(afterstop_after_stop_unpriced_model_calls{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Unpriced tokens after Stop',
        description: 'The tokens after Stop of the model calls without a price, in the last report: billed, and missing from the ghost tax.',
        unit: 'short',
        queries: [{ expr: `sum(afterstop_after_stop_unpriced_tokens{${FILTER}})` }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Ghost tax by service',
        description: 'Cost of the tokens billed after Stop in each report, by service: per day when the nightly job reports the last 24 hours (leak-report --since 24h).',
        unit: 'currencyUSD',
        queries: [{ expr: `sum by (service) (afterstop_ghost_tax_usd{${FILTER}})`, legend: '{{service}}' }],
      }),
    )
    .withPanel(
      bars({
        title: 'Tokens after Stop by model',
        description: 'Input and output tokens billed after Stop in the last report, by model (the models with the most tokens kept; the rest summed as other).',
        unit: 'short',
        queries: [{ expr: `sum by (model, direction) (afterstop_after_stop_tokens_by_model{${FILTER}})`, legend: '{{model}} {{direction}}' }],
      }),
    )
    .withRow(new RowBuilder('Side effects and history'))
    .withPanel(
      table({
        title: 'Ghost commits by tool and effect',
        description:
          'Side effects committed after Stop in the last report, by tool, effect class (irreversible and unknown are the ones to alarm on) and how they are known (observed commit markers; possible: in flight at Stop, the outcome not seen — an answer lost after Stop, or a tool that never ended; or inferred from foreign tool spans).',
        unit: 'short',
        queries: [{ expr: `sum by (tool, effect, how) (afterstop_ghost_commits_by_tool{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({ title: 'Ghost commits', description: 'Side effects known to have committed after Stop, in the last report.', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_ghost_commits{${FILTER}})` }] }),
    )
    .withPanel(
      stat({
        title: 'Possible ghost commits',
        description:
          'Side effects in flight at Stop whose outcome afterstop could not see (the request reached the service and its answer was lost after Stop, the tool never ended, or its effect was out of sight: an MCP tools/call), in the last report. The ghost-commit budget counts them unless --ghost-budget-excludes-possible.',
        unit: 'short',
        width: 3,
        queries: [{ expr: `sum(afterstop_ghost_commits_possible{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Orphan tool calls',
        description: 'Tool calls of cancelled runs whose result never reached the conversation and was not repaired: the next turn may be refused.',
        unit: 'short',
        width: 3,
        queries: [{ expr: `sum(afterstop_orphan_tool_calls{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Post-cancel errors',
        description: 'Next runs of a cancelled conversation that failed, in the last report (orphan_tool_call_rejected: the provider refused a history with a tool call and no result).',
        unit: 'short',
        width: 3,
        queries: [{ expr: `sum(afterstop_post_cancel_errors{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Replay duplicates',
        description: 'Side effects committed again by a replay (a resumed checkpoint re-ran a step), in the last report.',
        unit: 'short',
        width: 3,
        queries: [{ expr: `sum(afterstop_replay_duplicates{${FILTER}})` }],
      }),
    )
    .withRow(new RowBuilder('The guard (opt-in: docs/guard.md)'))
    .withPanel(
      stat({
        title: 'Commits prevented',
        description: "Side effects a tool tried to make after its run was stopped that the guard's commit fence refused before anything was sent, in the last report (0 while the fence is off).",
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(afterstop_commits_prevented{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Prevented: irreversible or unknown',
        description: 'Of the commits prevented, those of irreversible or unknown effects: the ghosts that would have alarmed.',
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(afterstop_commits_prevented_alarming{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Replays deduplicated',
        description: "Replays whose request carried the earlier commit's idempotency key (the guard's header, to a host listed as honouring it): done once by the service, in the last report.",
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(afterstop_replays_deduplicated{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Deadline cancels',
        description: "Runs cancelled by a deadline (cancel source timeout: the guard's deadline or the app's own), in the last report.",
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(afterstop_deadline_cancels{${FILTER}})` }],
      }),
    )
    .withPanel(
      stat({
        title: 'Commits prevented (live)',
        description: LIVE_NOTE("Side effects the guard's fence refused after Stop, over the dashboard’s range."),
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum(${liveTotal('afterstop_tool_commits_prevented_total')})` }],
      }),
    )
    .withPanel(
      table({
        title: 'Commits prevented by tool and effect',
        description: "The guard's fence refusals in the last report, by tool and effect class, beside the ghost commits by tool above.",
        unit: 'short',
        width: 4,
        queries: [{ expr: `sum by (tool, effect) (afterstop_commits_prevented_by_tool{${FILTER}})` }],
      }),
    )
    .withRow(new RowBuilder('Cancel latency and depth'))
    .withPanel(
      timeseries({
        title: 'Cancel ack latency p95, worst group by framework',
        description:
          'Time from the cancel request to its acknowledgement (the loop stopped): the highest 95th percentile among the framework’s service and agent groups, per report (percentiles of groups cannot be merged into the framework’s own).',
        unit: 's',
        queries: [{ expr: `max by (framework) (afterstop_cancel_ack_seconds{${FILTER}, stat="p95"})`, legend: '{{framework}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Cancel settle latency p95, worst group by framework',
        description: 'Time from the cancel request until everything in flight had ended: the highest 95th percentile among the framework’s service and agent groups, per report.',
        unit: 's',
        queries: [{ expr: `max by (framework) (afterstop_cancel_settle_seconds{${FILTER}, stat="p95"})`, legend: '{{framework}}' }],
      }),
    )
    .withPanel(
      table({
        title: 'Cancel-depth scorecard',
        description: 'Cancelled runs by framework and cancel depth (0: the loop went on; 4: loop, model, tools stopped and no ghost commit), in the last report.',
        unit: 'short',
        width: 24,
        queries: [{ expr: 'sum by (framework, depth) (afterstop_cancel_depth_by_framework_runs{framework=~"$framework"})' }],
      }),
    )
    .withRow(new RowBuilder('Steering'))
    .withPanel(
      stat({
        title: 'Steering inject latency p95, worst group',
        description: 'Time from a steering message queued to its injection into the conversation: the highest 95th percentile among the groups, last report.',
        unit: 's',
        queries: [{ expr: `max(afterstop_steer_inject_seconds{${FILTER}, stat="p95"})` }],
      }),
    )
    .withPanel(stat({ title: 'Steering messages dropped', description: 'Steering messages never injected, last report.', unit: 'short', queries: [{ expr: `sum(afterstop_steers_dropped{${FILTER}})` }] }))
    .withPanel(
      stat({
        title: 'Steering violations',
        description: 'Steering messages injected inside a tool batch (between a tool call and its result), last report.',
        unit: 'short',
        queries: [{ expr: `sum(afterstop_steer_violations{${FILTER}})` }],
      }),
    );
}
