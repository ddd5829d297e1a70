import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import { DatasourceVariableBuilder, QueryVariableBuilder, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { PanelBuilder as BarGaugePanel } from '@grafana/grafana-foundation-sdk/bargauge';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries';

/** What every panel of the Prometheus dashboards shares: the datasource variable, a title, a description, a unit. */
export const PROMETHEUS = { type: 'prometheus', uid: '${datasource}' };

/** The label filter of the service, agent and framework variables. */
export const FILTER = 'service=~"$service", agent=~"$agent", framework=~"$framework"';

export interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  /** PromQL; one query per legend entry. */
  queries: { expr: string; legend?: string }[];
  width?: number;
  height?: number;
}

const targets = (spec: PanelSpec, instant: boolean, asTable = false): cog.Builder<cog.Dataquery>[] =>
  spec.queries.map((q, i) => {
    const b = new DataqueryBuilder()
      .expr(q.expr)
      .refId(String.fromCharCode(65 + i))
      .legendFormat(q.legend ?? '__auto');
    // A table wants one frame with a row per series, not a frame per series.
    if (asTable) b.format(PromQueryFormat.Table);
    return instant ? b.instant() : b.range();
  });

/** A single figure (the latest report's). */
export function stat(spec: PanelSpec): StatPanel {
  return new StatPanel()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(PROMETHEUS)
    .height(spec.height ?? 4)
    .span(spec.width ?? 4)
    .targets(targets(spec, true));
}

/** A figure over time: one point per nightly report. */
export function timeseries(spec: PanelSpec): TimeseriesPanel {
  return new TimeseriesPanel()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(PROMETHEUS)
    .height(spec.height ?? 8)
    .span(spec.width ?? 12)
    .targets(targets(spec, false));
}

/** A figure split by a label, as bars. */
export function bars(spec: PanelSpec): BarGaugePanel {
  return new BarGaugePanel()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(PROMETHEUS)
    .height(spec.height ?? 8)
    .span(spec.width ?? 12)
    .targets(targets(spec, true));
}

/** A figure split by several labels, as a table. */
export function table(spec: PanelSpec): TablePanel {
  return new TablePanel()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(PROMETHEUS)
    .height(spec.height ?? 8)
    .span(spec.width ?? 12)
    .targets(targets(spec, true, true));
}

export function datasourceVariable(type: string): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder('datasource').label('Data source').type(type);
}

/** A multi-value variable over one label of afterstop_runs, All by default. */
export function labelVariable(label: string, title: string): QueryVariableBuilder {
  return new QueryVariableBuilder(label)
    .label(title)
    .datasource(PROMETHEUS)
    .query(`label_values(afterstop_runs, ${label})`)
    .definition(`label_values(afterstop_runs, ${label})`)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .current({ text: 'All', value: '$__all' });
}
