import { beforeAll, describe, expect, it } from 'vitest';
import { renderExplainTerminal } from '../../render/explain-terminal.js';
import type { Explanation } from '../../types.js';
import { ESC, explanations } from '../../../test/helpers/explanations.js';

/** explain for a terminal: offsets from Stop, one line per item in time order, bars that fit the width, colour only when asked. */
let ghost: Explanation;
let hostile: Explanation;
beforeAll(async () => {
  ({ ghost, hostile } = await explanations());
});

const lines = (text: string): string[] => text.split('\n');

describe('renderExplainTerminal', () => {
  it('one line per item in time order, offsets from Stop, the ghost commit marked, the figures below', () => {
    const text = renderExplainTerminal(ghost, { color: false, width: 120 });
    const chart = lines(text).filter((l) => /^\s*[-+][\d,]+ ms  /.test(l));
    expect(chart.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual(['-600 ms', '-100 ms', '+0 ms', '+50 ms', '+300 ms', '+4,410 ms']);
    expect(chart[2]).toMatch(/\+0 ms .*│.* Stop$/);
    expect(chart[3]).toMatch(/\+50 ms .* ack$/);
    expect(chart[4]).toMatch(/\+300 ms .*◆.*send_email COMMIT \(irreversible\)  ← ghost$/);
    expect(chart[1]).toMatch(/send_email \(irreversible\)  orphan: no result in the conversation/);
    expect(text).toContain('Finding: ghost_commit (severity 1)');
    expect(text).toMatch(/cancel depth\s+3 of 4: a side effect may have landed after Stop: 1 ghost commit/);
    expect(text).toMatch(/post-cancel error\s+the next run 000000000000000f failed at .*orphan_tool_call_rejected/);
    expect(text).toContain('Next run of the conversation: 000000000000000f');
    expect(text).not.toContain(ESC);
  });

  it('bars scale to the width: the Stop column is where 0 falls, work after Stop drawn heavy', () => {
    for (const width of [80, 120, 200]) {
      const chart = lines(renderExplainTerminal(ghost, { color: false, width }))
        .filter((l) => /^\s*[-+][\d,]+ ms  /.test(l))
        .slice(0, 5);
      const offsetWidth = '-600 ms'.length;
      const barWidth = Math.max(12, Math.min(72, width - offsetWidth - 4 - 48));
      const bars = chart.map((l) => [...l.slice(offsetWidth + 2, offsetWidth + 2 + barWidth)]);
      // The axis runs from the model call's start (-600 ms) to the tool call's end (+350 ms).
      const column = (ms: number): number => Math.round(((ms + 600) / 950) * (barWidth - 1));
      // The Stop's column on every line but the bar that crosses it.
      for (const [i, bar] of bars.entries()) if (i !== 1) expect(bar[column(0)]).toBe('│');
      expect(bars[0]!.slice(column(-600), column(-120) + 1).join('')).toMatch(/^▒+$/);
      expect(bars[1]!.slice(column(-100), column(0)).join('')).toMatch(/^▒+$/);
      expect(bars[1]!.slice(column(0) + 1, column(350) + 1).join('')).toMatch(/^█+$/);
      expect(bars[4]![column(300)]).toBe('◆');
      expect(bars[3]![column(50)]).toMatch(/[┆│]/);
    }
  });

  it('colour only when asked: red for what went on after Stop', () => {
    expect(renderExplainTerminal(ghost, { color: false })).not.toContain(ESC);
    const coloured = renderExplainTerminal(ghost, { color: true });
    expect(coloured).toContain(`${ESC}[31m█`);
    expect(coloured).toMatch(new RegExp(`${ESC}\\[1m${ESC}\\[31msend_email COMMIT`));
  });

  it('trace content cannot drive the terminal: escapes and bidi overrides shown as U+FFFD; a tool that never ended is marked', () => {
    const text = renderExplainTerminal(hostile, { color: false, width: 120 });
    expect(text).not.toContain(ESC);
    expect(text).not.toContain('\u202e');
    expect(text).not.toContain('\u0007');
    expect(text).toMatch(/rm -rf �\]0;pwned� �evil \(irreversible\) …  never ended, ← possible ghost/);
    expect(text).toMatch(/cancel depth\s+2 of 4: rm -rf .* was running at Stop and never ended/);
  });
});
