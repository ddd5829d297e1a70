import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { budgetStatus } from '../../cli/budgets.js';
import { REMEDIES } from '../../render/remedies.js';
import { colorWanted, renderTerminal } from '../../render/terminal.js';
import { verdict } from '../../render/verdict.js';
import { traces } from '../../../test/helpers/trace-builder.js';

const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
let report: LeakReport;
beforeAll(async () => {
  report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:' });
});

describe('the terminal report', () => {
  it('shows the headline figures, ghost commits by tool, the scorecard and the worst findings with trace ids', () => {
    const text = renderTerminal(report, { color: false, findings: 3 });
    expect(text).toMatch(/Ghost tax\s+\$0\.\d{4}/);
    expect(text).toMatch(new RegExp(`Ghost commits\\s+${report.totals.ghost_commits} `));
    expect(text).toMatch(/Cancel ack p50 \/ p95\s+\d/);
    expect(text).toContain('Cancel depth per framework');
    expect(text).toMatch(/^\s+manual\s+\d+/m);
    expect(text).toContain(`Findings by kind (3 of ${report.findings.length} listed`);
    for (const f of report.findings.slice(0, 3)) expect(text).toContain(f.trace_id);
    expect(text).not.toContain(report.findings[3]!.detail === report.findings[0]!.detail ? '\u0000' : report.findings[3]!.trace_id + ' ' + report.findings[3]!.detail);
  });

  it('a report whose findings list was cut to none does not read as free of leaks under its verdict', () => {
    const none = { ...report, findings: [] };
    const text = renderTerminal(none, { color: false });
    expect(text).toContain('No finding is listed here (leak-report --findings sets how many are): the figures above say what was found.');
    expect(text).not.toContain('nothing kept running after Stop');
  });

  it('leads with the verdict, then the figures that need attention, the others, the findings by kind with their remedy, then the tables', () => {
    const budgets = budgetStatus(report, { maxGhostCommits: 0, maxOrphans: 5 });
    const text = renderTerminal(report, { color: false, findings: 3, budgets });
    const lines = text.split('\n');
    expect(lines[0]).toBe('afterstop leak report');
    expect(lines[1]).toBe(verdict(report, budgets).sentence);
    const at = (needle: string): number => {
      const i = text.indexOf(needle);
      expect(i, needle).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [at(lines[1]!), at('\nNeeds attention\n'), at('\nOther figures\n'), at('\nFindings by kind'), at('\nGhost commits by tool'), at('\nCancel depth per framework')];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const attention = text.slice(at('\nNeeds attention\n'), at('\nOther figures\n'));
    const others = text.slice(at('\nOther figures\n'), at('\nFindings by kind'));
    // Over its budget, the limit beside it; within one, said so; zero where zero is healthy: named once, at zero.
    expect(attention).toMatch(/Ghost commits\s+1 \(1 irreversible or unknown, 0 inferred\)\s+\(over budget --max-ghost-commits 0\)\n/);
    expect(attention).toMatch(/Orphan tool calls\s+1\s+\(within budget --max-orphans 5\)\n/);
    for (const label of ['Ghost tax', 'Tokens after Stop', 'Post-cancel errors', 'Replay duplicates', 'Unacknowledged cancels']) expect(attention).toContain(label);
    expect(others).toMatch(/Runs \(cancelled\)\s+9 \(5\)/);
    expect(others).toContain('At zero: possible ghost commits, orphan processes, unended runs, cleanup errors');
    expect(attention).not.toContain('Possible ghost commits');
    // Each kind: its count and remedy, then its rows among the worst three.
    expect(text).toContain(`ghost_commit ×1  ${REMEDIES.ghost_commit}`);
    expect(text).toContain(`tokens_after_stop ×2  ${REMEDIES.tokens_after_stop}`);
    expect(text).toContain(`steer_dropped ×1  ${REMEDIES.steer_dropped}`);
  });

  it('an all-clear: green only when colour is asked, no attention section, the figures at zero named once', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(120);
    const clear = await analyze({ inputs: [t.write()], db: ':memory:' });
    const plain = renderTerminal(clear, { color: false });
    expect(plain.split('\n')[1]).toMatch(/^All clear: in the 1 stopped run \(of 1 run\)/);
    expect(plain).not.toContain('Needs attention');
    expect(plain).toContain(
      '  At zero: ghost tax, tokens after Stop, ghost commits, possible ghost commits, orphan tool calls, post-cancel errors, replay duplicates, unacknowledged cancels, orphan processes, unended runs, cleanup errors\n',
    );
    expect(renderTerminal(clear, { color: true }).split('\n')[1]).toMatch(/^\x1b\[1m\x1b\[32mAll clear/);
    expect(renderTerminal(report, { color: true }).split('\n')[1]).toMatch(/^\x1b\[1m\x1b\[31m1 side effect/);
  });

  it('nothing to judge: the evidence note is the verdict, in the first line', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 100, outcome: 'completed' });
    const none = await analyze({ inputs: [t.write()], db: ':memory:', since: new Date('2100-01-01T00:00:00Z') });
    expect(none.evidence.status).toBe('no_runs');
    const text = renderTerminal(none, { color: false });
    expect(text.split('\n')[1]).toBe(`NOTHING TO JUDGE: ${none.evidence.note}`);
    expect(text).not.toMatch(/all clear|Needs attention/i);
  });

  it('colours bad figures only when asked', () => {
    expect(renderTerminal(report, { color: true })).toMatch(/\x1b\[/);
    expect(renderTerminal(report, { color: false })).not.toMatch(/\x1b\[/);
  });

  it('shows trace content with control characters neutralised', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'evil\x1b[2J\nname', callId: 'c', startMs: 50, endMs: 300 });
    r.commit({ callId: 'c', atMs: 200 });
    const hostile = await analyze({ inputs: [t.write()], db: ':memory:' });
    const text = renderTerminal(hostile, { color: false });
    expect(text).not.toContain('\x1b');
    expect(text).toContain('evil\ufffd[2J name');
  });

  it('colour: NO_COLOR wins, FORCE_COLOR asks, else only on a terminal', () => {
    expect(colorWanted({ isTTY: true }, {})).toBe(true);
    expect(colorWanted({ isTTY: false }, {})).toBe(false);
    expect(colorWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorWanted({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorWanted({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorWanted({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});
