import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERTS_FILE, alertRulesYaml, RULE_GROUPS } from '../../dashboards/src/alerts.js';

/** The alerting rules: fresh from their TypeScript, valid to promtool, and right by promtool's unit tests. */
const dashboards = fileURLToPath(new URL('../../dashboards/', import.meta.url));
const unitTests = fileURLToPath(new URL('./afterstop-alerts.promtool.yml', import.meta.url));

const promtool = (...args: string[]) => spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000 });

describe('the alerting rules', () => {
  it(`${ALERTS_FILE} is what dashboards/src/alerts.ts generates (run \`npm run dashboards\` after a change)`, () => {
    expect(fs.readFileSync(dashboards + ALERTS_FILE, 'utf8')).toBe(alertRulesYaml());
  });

  it('promtool checks them, and its unit tests pass: each alert fires when it should and only then', () => {
    const check = promtool('check', 'rules', dashboards + ALERTS_FILE);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain(`SUCCESS: ${RULE_GROUPS.flatMap((g) => g.rules).length} rules found`);
    const test = promtool('test', 'rules', unitTests);
    expect(test.status, test.stdout + test.stderr).toBe(0);
  });

  it('each alert’s rendered annotations are tested: its description with the measured value, its runbook_url', () => {
    type Case = { alert_rule_test?: { alertname: string; exp_alerts: { exp_annotations?: Record<string, string> }[] }[] };
    const cases = (parse(fs.readFileSync(unitTests, 'utf8')) as { tests: Case[] }).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const r of RULE_GROUPS.flatMap((g) => g.rules)) {
      const expected = cases.filter((c) => c.alertname === r.alert).flatMap((c) => c.exp_alerts.map((a) => a.exp_annotations));
      expect(expected.length, r.alert).toBeGreaterThan(0);
      for (const annotations of expected) expect(Object.keys(annotations ?? {}).sort(), r.alert).toEqual(['description', 'runbook_url', 'summary']);
    }
  });

  it('the unit tests fail for a description that drops the measured value (the budget’s figure)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-alerts-'));
    try {
      const vague = RULE_GROUPS.map((g) => ({
        ...g,
        rules: g.rules.map((r) =>
          r.alert === 'AfterstopBudgetExceeded' ? { ...r, annotations: { ...r.annotations, description: r.annotations.description.replace(/it has \{\{.*?\{\{ end \}\}/, 'it has too much') } } : r,
        ),
      }));
      expect(alertRulesYaml(vague)).toContain('it has too much');
      fs.mkdirSync(path.join(dir, 'dashboards'));
      fs.mkdirSync(path.join(dir, 'test', 'dashboards'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'dashboards', ALERTS_FILE), alertRulesYaml(vague));
      fs.copyFileSync(unitTests, path.join(dir, 'test', 'dashboards', path.basename(unitTests)));
      const test = promtool('test', 'rules', path.join(dir, 'test', 'dashboards', path.basename(unitTests)));
      expect(test.status).not.toBe(0);
      expect(test.stdout + test.stderr).toMatch(/alertname: AfterstopBudgetExceeded/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the unit tests fail for rules that would miss a ghost (a series born at its first commit)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-alerts-'));
    try {
      // Without the "new series" half, the first ghost commit of a tool never fires.
      const blind = RULE_GROUPS.map((g) => ({ ...g, rules: g.rules.map((r) => (r.alert === 'AfterstopGhostCommit' ? { ...r, expr: r.expr.split(' or ')[0]! } : r)) }));
      fs.mkdirSync(path.join(dir, 'dashboards'));
      fs.mkdirSync(path.join(dir, 'test', 'dashboards'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'dashboards', ALERTS_FILE), alertRulesYaml(blind));
      fs.copyFileSync(unitTests, path.join(dir, 'test', 'dashboards', path.basename(unitTests)));
      const test = promtool('test', 'rules', path.join(dir, 'test', 'dashboards', path.basename(unitTests)));
      expect(test.status).not.toBe(0);
      expect(test.stdout + test.stderr).toMatch(/alertname: AfterstopGhostCommit, time: 6m/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
