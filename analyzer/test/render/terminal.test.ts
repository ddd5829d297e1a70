import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { colorWanted, renderTerminal } from '../../render/terminal.js';
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
    expect(text).toContain(`Worst findings (3 of ${report.findings.length})`);
    for (const f of report.findings.slice(0, 3)) expect(text).toContain(f.trace_id);
    expect(text).not.toContain(report.findings[3]!.detail === report.findings[0]!.detail ? '\u0000' : report.findings[3]!.trace_id + ' ' + report.findings[3]!.detail);
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
