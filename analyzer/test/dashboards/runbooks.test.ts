import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULE_GROUPS, RUNBOOKS_URL } from '../../dashboards/src/alerts.js';

/** Every alert links its runbook (docs/runbooks/<alert>.md), which exists, names the alert and says what to do; no runbook without its alert. */
const docs = fileURLToPath(new URL('../../../docs/', import.meta.url));
const alerts = RULE_GROUPS.flatMap((g) => g.rules);

describe('the alerts’ runbooks', () => {
  it.each(alerts.map((a) => [a.alert, a] as const))('%s: runbook_url points at its runbook, which names it and has each part', (name, alert) => {
    expect(alert.annotations.runbook_url).toBe(`${RUNBOOKS_URL}${name}.md`);
    expect(RUNBOOKS_URL).toBe('https://github.com/afterstop/afterstop/blob/main/docs/runbooks/');
    const text = fs.readFileSync(`${docs}runbooks/${name}.md`, 'utf8');
    expect(text.split('\n')[0]).toBe(`# ${name}`);
    for (const part of ['## What it means', '## Confirm it', '## Remedies', '## When to silence']) expect(text, part).toContain(`\n${part}\n`);
    // The severity the runbook states is the rule's.
    expect(text).toContain(`**Severity: ${alert.labels['severity']}.`);
  });

  it('no runbook without its alert, and docs/nightly.md lists each alert with its runbook', () => {
    expect(
      fs
        .readdirSync(`${docs}runbooks`)
        .map((f) => f.replace(/\.md$/, ''))
        .sort(),
    ).toEqual(alerts.map((a) => a.alert).sort());
    const nightly = fs.readFileSync(`${docs}nightly.md`, 'utf8');
    for (const { alert } of alerts) expect(nightly).toContain(`| \`${alert}\` |`);
    for (const { alert } of alerts) expect(nightly).toContain(`[${alert}](./runbooks/${alert}.md)`);
  });

  it('every description gives the measured value (a template of $value or a pushed figure) and names its limit', () => {
    for (const { alert, annotations } of alerts) {
      expect(annotations.description, alert).toMatch(/\{\{ \$value \| humanize(Duration)? \}\}|\| query \}\}/);
      expect(annotations.description, alert).toMatch(/limit|at least one/);
    }
  });
});
