import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DASHBOARDS, dashboardJson } from '../../dashboards/src/dashboards.js';

/** The committed dashboards: fresh from their TypeScript, and fit to use (the lint). */
const dir = fileURLToPath(new URL('../../dashboards/', import.meta.url));
type Panel = { id?: number; type: string; title?: string; description?: string; datasource?: { uid?: string }; fieldConfig?: { defaults?: { unit?: string } }; targets?: { expr?: string; query?: string }[] };
type Dashboard = { uid: string; title: string; panels: Panel[]; templating: { list: { name: string; type: string }[] } };
const committed = Object.keys(DASHBOARDS).map((file) => [file, JSON.parse(fs.readFileSync(dir + file, 'utf8')) as Dashboard] as const);

describe('the committed dashboards', () => {
  it.each(Object.keys(DASHBOARDS))('%s is what dashboards/src generates (run `npm run dashboards` after a change)', (file) => {
    expect(fs.readFileSync(dir + file, 'utf8')).toBe(dashboardJson(DASHBOARDS[file]!));
  });

  it('stable, unique uids; unique panel ids', () => {
    expect(committed.map(([, d]) => d.uid)).toEqual(['afterstop-ghost-overview', 'afterstop-tempo-live']);
    for (const [file, d] of committed) {
      const ids = d.panels.map((p) => p.id);
      expect(new Set(ids).size, file).toBe(ids.length);
      expect(
        ids.every((id) => Number.isInteger(id) && id! > 0),
        file,
      ).toBe(true);
    }
  });

  it('every panel has a title, a description, a unit, and takes its data source from the variable', () => {
    for (const [file, d] of committed) {
      expect(d.templating.list.find((v) => v.name === 'datasource')?.type, file).toBe('datasource');
      for (const p of d.panels.filter((x) => x.type !== 'row')) {
        const where = `${file}: ${p.title ?? p.id}`;
        expect(p.title, where).toBeTruthy();
        expect((p.description ?? '').length, where).toBeGreaterThan(20);
        expect(p.fieldConfig?.defaults?.unit, where).toBeTruthy();
        expect(p.datasource?.uid, where).toBe('${datasource}');
        expect(p.targets?.length, where).toBeGreaterThan(0);
        for (const t of p.targets ?? []) expect(t.expr ?? t.query, where).toBeTruthy();
      }
    }
  });

  it('the overview filters by service, agent and framework, and covers the figures the issue names', () => {
    const overview = committed.find(([f]) => f === 'ghost-overview.json')![1];
    expect(overview.templating.list.map((v) => v.name)).toEqual(['datasource', 'service', 'agent', 'framework']);
    const exprs = overview.panels
      .flatMap((p) => p.targets ?? [])
      .map((t) => t.expr ?? '')
      .join('\n');
    for (const metric of [
      'afterstop_ghost_tax_usd',
      'afterstop_after_stop_tokens_by_model',
      'afterstop_ghost_commits_by_tool',
      'afterstop_orphan_tool_calls',
      'afterstop_post_cancel_errors',
      'afterstop_replay_duplicates',
      'afterstop_cancel_ack_seconds',
      'afterstop_cancel_settle_seconds',
      'afterstop_cancel_depth_by_framework_runs',
      'afterstop_steers_dropped',
      'afterstop_commits_prevented',
      'afterstop_commits_prevented_by_tool',
      'afterstop_replays_deduplicated',
      'afterstop_deadline_cancels',
      'afterstop_after_stop_unpriced_model_calls',
      'afterstop_after_stop_unpriced_tokens',
    ]) {
      expect(exprs).toContain(metric);
    }
  });
});
