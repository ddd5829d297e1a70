import { DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table';
import { DataqueryBuilder as TempoQuery } from '@grafana/grafana-foundation-sdk/tempo';
import { datasourceVariable } from './panels.js';

export const TEMPO_LIVE_UID = 'afterstop-tempo-live';

const TEMPO = { type: 'tempo', uid: '${datasource}' };

/** TraceQL of the live panels (also read by the lint test). */
export const TRACEQL = {
  /** A side effect that became real after Stop: the ghost, as it happens. */
  ghostCommits: '{ name = "afterstop.tool.commit" && span.afterstop.cancel.state != "none" }',
  /**
   * Cancel requests never acknowledged: request markers with no ack marker
   * beside them (both are children of the run span; `!~` is TraceQL's
   * negated sibling operator, experimental in Tempo 2.x).
   */
  unacknowledged: '{ name = "afterstop.cancel.request" } !~ { name = "afterstop.cancel.ack" }',
};

function traceTable(title: string, description: string, query: string): TablePanel {
  return new TablePanel().title(title).description(description).unit('short').datasource(TEMPO).span(24).height(10).withTarget(new TempoQuery().refId('A').queryType('traceql').query(query).limit(50));
}

/** For teams that keep their traces in Tempo: the ghosts as they happen, with links to the traces. */
export function tempoLive(): DashboardBuilder {
  return new DashboardBuilder('afterstop: live ghost commits (Tempo)')
    .uid(TEMPO_LIVE_UID)
    .description('Side effects committed after Stop and cancel requests never acknowledged, straight from the traces in Tempo (TraceQL over afterstop spans).')
    .tags(['afterstop', 'ai-agents', 'tempo'])
    .editable()
    .refresh('1m')
    .time({ from: 'now-6h', to: 'now' })
    .withVariable(datasourceVariable('tempo'))
    .withPanel(traceTable('Ghost commits, live', 'afterstop.tool.commit spans whose afterstop.cancel.state is not none: a side effect that became real after the user pressed Stop.', TRACEQL.ghostCommits))
    .withPanel(
      traceTable('Cancel requests without ack', 'Runs with an afterstop.cancel.request and no afterstop.cancel.ack: the loop never said it stopped (a hung run, or a framework that cannot stop).', TRACEQL.unacknowledged),
    );
}
