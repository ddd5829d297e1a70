import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { bars, datasourceVariable, FILTER, labelVariable, stat, table, timeseries } from './panels.js';

export const GHOST_OVERVIEW_UID = 'afterstop-ghost-overview';

/**
 * "Ghost execution overview": what agents kept doing after Stop, from the
 * metrics `afterstop leak-report --push-gateway` publishes (one report a
 * night: the latest value is the last report's).
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
    .withRow(new RowBuilder('Cost after Stop'))
    .withPanel(stat({ title: 'Ghost tax', description: 'Cost of the tokens billed after Stop in the last report (the price table of the report).', unit: 'currencyUSD', queries: [{ expr: `sum(afterstop_ghost_tax_usd{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Cancelled runs', description: 'Runs whose user pressed Stop, in the last report.', unit: 'short', queries: [{ expr: `sum(afterstop_cancelled_runs{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Model calls started after Stop', description: 'Model calls a cancelled run started after Stop: the loop went on.', unit: 'short', queries: [{ expr: `sum(afterstop_model_calls_started_after_stop{${FILTER}})` }] }))
    .withPanel(timeseries({ title: 'Ghost tax by service', description: 'Cost of the tokens billed after Stop in each report, by service: per day when the nightly job reports the last 24 hours (leak-report --since 24h).', unit: 'currencyUSD', queries: [{ expr: `sum by (service) (afterstop_ghost_tax_usd{${FILTER}})`, legend: '{{service}}' }] }))
    .withPanel(bars({ title: 'Tokens after Stop by model', description: 'Input and output tokens billed after Stop in the last report, by model (the models with the most tokens kept; the rest summed as other).', unit: 'short', queries: [{ expr: `sum by (model, direction) (afterstop_after_stop_tokens_by_model{${FILTER}})`, legend: '{{model}} {{direction}}' }] }))
    .withRow(new RowBuilder('Side effects and history'))
    .withPanel(table({ title: 'Ghost commits by tool and effect', description: 'Side effects committed after Stop in the last report, by tool, effect class (irreversible and unknown are the ones to alarm on) and how they are known (observed commit markers; possible: in flight at Stop, the outcome not seen — an answer lost after Stop, or a tool that never ended; or inferred from foreign tool spans).', unit: 'short', queries: [{ expr: `sum by (tool, effect, how) (afterstop_ghost_commits_by_tool{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Ghost commits', description: 'Side effects known to have committed after Stop, in the last report.', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_ghost_commits{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Possible ghost commits', description: 'Side effects in flight at Stop whose outcome afterstop could not see (the request reached the service and its answer was lost after Stop, or the tool never ended), in the last report. The ghost-commit budget counts them unless --ghost-budget-excludes-possible.', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_ghost_commits_possible{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Orphan tool calls', description: 'Tool calls of cancelled runs whose result never reached the conversation and was not repaired: the next turn may be refused.', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_orphan_tool_calls{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Post-cancel errors', description: 'Next runs of a cancelled conversation that failed, in the last report (orphan_tool_call_rejected: the provider refused a history with a tool call and no result).', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_post_cancel_errors{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Replay duplicates', description: 'Side effects committed again by a replay (a resumed checkpoint re-ran a step), in the last report.', unit: 'short', width: 3, queries: [{ expr: `sum(afterstop_replay_duplicates{${FILTER}})` }] }))
    .withRow(new RowBuilder('Cancel latency and depth'))
    .withPanel(timeseries({ title: 'Cancel ack latency p95, worst group by framework', description: 'Time from the cancel request to its acknowledgement (the loop stopped): the highest 95th percentile among the framework’s service and agent groups, per report (percentiles of groups cannot be merged into the framework’s own).', unit: 's', queries: [{ expr: `max by (framework) (afterstop_cancel_ack_seconds{${FILTER}, stat="p95"})`, legend: '{{framework}}' }] }))
    .withPanel(timeseries({ title: 'Cancel settle latency p95, worst group by framework', description: 'Time from the cancel request until everything in flight had ended: the highest 95th percentile among the framework’s service and agent groups, per report.', unit: 's', queries: [{ expr: `max by (framework) (afterstop_cancel_settle_seconds{${FILTER}, stat="p95"})`, legend: '{{framework}}' }] }))
    .withPanel(table({ title: 'Cancel-depth scorecard', description: 'Cancelled runs by framework and cancel depth (0: the loop went on; 4: loop, model, tools stopped and no ghost commit), in the last report.', unit: 'short', width: 24, queries: [{ expr: 'sum by (framework, depth) (afterstop_cancel_depth_by_framework_runs{framework=~"$framework"})' }] }))
    .withRow(new RowBuilder('Steering'))
    .withPanel(stat({ title: 'Steering inject latency p95, worst group', description: 'Time from a steering message queued to its injection into the conversation: the highest 95th percentile among the groups, last report.', unit: 's', queries: [{ expr: `max(afterstop_steer_inject_seconds{${FILTER}, stat="p95"})` }] }))
    .withPanel(stat({ title: 'Steering messages dropped', description: 'Steering messages never injected, last report.', unit: 'short', queries: [{ expr: `sum(afterstop_steers_dropped{${FILTER}})` }] }))
    .withPanel(stat({ title: 'Steering violations', description: 'Steering messages injected inside a tool batch (between a tool call and its result), last report.', unit: 'short', queries: [{ expr: `sum(afterstop_steer_violations{${FILTER}})` }] }));
}
