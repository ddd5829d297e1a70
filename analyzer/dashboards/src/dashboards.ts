import type { DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { ghostOverview } from './ghost-overview.js';
import { tempoLive } from './tempo-live.js';

/** The dashboards afterstop ships, by the file each is committed as under dashboards/. */
export const DASHBOARDS: Record<string, () => DashboardBuilder> = {
  'ghost-overview.json': ghostOverview,
  'tempo-live.json': tempoLive,
};

/** The dashboard, its panels numbered in order (stable ids: the builder leaves them to Grafana). */
export function buildDashboard(build: () => DashboardBuilder): { panels?: { id?: number }[] } & Record<string, unknown> {
  const dashboard = build().build() as unknown as { panels?: { id?: number }[] } & Record<string, unknown>;
  dashboard.panels?.forEach((panel, i) => {
    panel.id = i + 1;
  });
  return dashboard;
}

/** A dashboard as committed: JSON with two-space indentation and a final newline. */
export const dashboardJson = (build: () => DashboardBuilder): string => `${JSON.stringify(buildDashboard(build), null, 2)}\n`;
