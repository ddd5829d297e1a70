import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderScorecardHtml } from '../../scorecard/html.js';
import { renderScorecard } from '../../scorecard/markdown.js';
import { FRAMEWORKS, MOMENTS } from '../../scorecard/scenarios.js';
import { truthAfterStop, type AppRun } from '../../scorecard/run-app.js';
import { ghostsAgree, ghostText, runScorecard, tracedText, type Scorecard } from '../../scorecard/scorecard.js';

/** `npm run scorecard`: its runner on one framework (the whole card is the command's job), and its Markdown. */
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the cancel scorecard', () => {
  it('runs a framework’s cells against the simulator and agrees with the ground truth', async () => {
    const seen: string[] = [];
    const card = await runScorecard(root, { only: (f) => f === 'openai SDK, Chat Completions', progress: (_d, _t, label) => seen.push(label) });
    expect(card.cells.map((c) => [c.moment, c.ran, c.agrees])).toEqual([
      ['stream', true, true],
      ['leave', true, true],
    ]);
    expect(card.cells[0]!.measured).toMatchObject({ ghostCommits: 0, cancelDepth: 4 });
    expect(card.versions['openai']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(seen.at(-1)).toBe('done');
  });

  it('the ground truth of orphans: tool calls that ran without a result in the kept history, counted once; none without a Stop', () => {
    const run = (out: Record<string, unknown>): AppRun => ({ out, report: undefined as never, requests: [], effects: [], stderr: '', code: 0, traces: '' });
    expect(truthAfterStop(run({ stopNs: '1', toolsRan: ['a', 'b', 'b', 'c'], toolResultsKept: ['a'] })).orphans).toBe(2);
    expect(truthAfterStop(run({ stopNs: '1', toolsRan: ['a'], toolResultsKept: ['a'] })).orphans).toBe(0);
    expect(truthAfterStop(run({ toolsRan: ['a'], toolResultsKept: [] })).orphans).toBeUndefined();
    expect(truthAfterStop(run({ stopNs: '1' })).orphans).toBeUndefined();
  });

  it('every cell names an app scenario that exists; every moment is described', () => {
    for (const f of FRAMEWORKS)
      for (const [moment, cell] of Object.entries(f.cells)) {
        expect(MOMENTS[moment as keyof typeof MOMENTS], moment).toBeTruthy();
        expect(cell!.scenario, f.framework).toMatch(/^[a-z-]+$/);
      }
  });

  it('ghost commits agree when the known ones landed after Stop and every one that landed is known or possible', () => {
    const m = (ghostCommits: number, possibleGhostCommits: number) => ({ ghostCommits, possibleGhostCommits });
    expect([ghostsAgree(m(0, 1), 0), ghostsAgree(m(0, 1), 1), ghostsAgree(m(1, 0), 1), ghostsAgree(m(1, 1), 2)]).toEqual([true, true, true, true]);
    // A known ghost that did not land, or one that landed unseen, disagrees.
    expect([ghostsAgree(m(1, 0), 0), ghostsAgree(m(0, 0), 1), ghostsAgree(m(0, 1), 2)]).toEqual([false, false, false]);
    expect([ghostText(m(1, 0)), ghostText(m(0, 2))]).toEqual(['1', '0 (+2 possible)']);
  });

  it('the Markdown marks a figure that disagrees and a cell that did not run', () => {
    const card: Scorecard = {
      date: '2026-11-29',
      node: 'v20',
      versions: { ai: '6.0.0' },
      durationMs: 1000,
      cells: [
        {
          framework: 'A',
          moment: 'stream',
          scenario: 'x',
          ran: true,
          agrees: false,
          measured: {
            cancelDepth: 4,
            ackMs: 5,
            settleMs: 6,
            ghostCommits: 1,
            possibleGhostCommits: 0,
            orphanToolCalls: 0,
            replayDuplicates: 0,
            replaysDeduplicated: 0,
            commitsPrevented: 0,
            modelCallsAfterStop: 0,
            outputTokensAfterStop: 3,
            nextTurnErrors: 0,
            steering: { injectMs: null, violations: 0, dropped: 0 },
          },
          truth: { ghostCommits: 2, replays: 0, deduplicated: 0, modelCallsStarted: 0, outputTokensSent: 3 },
        },
        { framework: 'B|pipe', moment: 'drain', scenario: 'y', ran: false, error: 'boom' },
        {
          framework: 'C',
          moment: 'after-commit',
          scenario: 'z',
          ran: true,
          agrees: false,
          limit: 'cannot tell when the service committed',
          measured: {
            cancelDepth: 3,
            ackMs: 1,
            settleMs: 1,
            ghostCommits: 1,
            possibleGhostCommits: 0,
            orphanToolCalls: 1,
            replayDuplicates: 0,
            replaysDeduplicated: 0,
            commitsPrevented: 0,
            modelCallsAfterStop: 0,
            outputTokensAfterStop: 0,
            nextTurnErrors: 0,
            steering: { injectMs: null, violations: 0, dropped: 0 },
          },
          truth: { ghostCommits: 0, replays: 0, deduplicated: 0, modelCallsStarted: 0, outputTokensSent: 0 },
        },
      ],
    };
    const md = renderScorecard(card);
    expect(md).toContain('| C | effect committed, its result not back yet | 3 | 1 | 1 | **1** / 0 | 1 | 0 | 0 | 0 | 0 | – | – | – | no: known limit 1 |');
    expect(md).toContain('Known limits:\n1. cannot tell when the service committed');
    expect(md).toContain('| A | during the model stream | 4 | 5 | 6 | **1** / 2 | 0 | 0 | 0 | 3 | 0 | – | – | – | **no** |');
    expect(md).toContain('| B\\|pipe | drain | did not run: boom |');
    expect(md).toContain('0 of 2 agree with the ground truth');
    const html = renderScorecardHtml({ ...card, cells: [...card.cells, { ...card.cells[0]!, framework: '<script>alert(1)</script>' }] });
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<strong>1</strong> / 2');
    expect(html).toContain('no: known limit 1');
    expect(html).toContain('<li>cannot tell when the service committed</li>');
  });

  it('the traced-service cell: the ghosts against the truth, what the service confirmed and ruled out, and whether its spans joined', () => {
    const measured = {
      cancelDepth: 4,
      ackMs: 1,
      settleMs: 1,
      ghostCommits: 1,
      possibleGhostCommits: 0,
      orphanToolCalls: 0,
      replayDuplicates: 0,
      replaysDeduplicated: 0,
      commitsPrevented: 0,
      modelCallsAfterStop: 0,
      outputTokensAfterStop: 0,
      nextTurnErrors: 0,
      steering: { injectMs: null, violations: 0, dropped: 0 },
    };
    const truth = { ghostCommits: 1, replays: 0, deduplicated: 0, modelCallsStarted: 0, outputTokensSent: 0 };
    const text = (t: Parameters<typeof tracedText>[0]): string =>
      tracedText(t)
        .map((p) => (p.strong ? `**${p.text}**` : p.text))
        .join('');
    expect(text({ ran: true, shift: '-5s', measured, truth, agrees: true, confirmed: 1, ruledOut: 0, joined: true })).toBe('1 ghost, 1 confirmed, 0 ruled out');
    expect(text({ ran: true, shift: '-5s', measured: { ...measured, ghostCommits: 0, possibleGhostCommits: 1 }, truth, agrees: true, joined: false })).toBe(
      '0 (+1 possible) ghost, 0 confirmed, 0 ruled out; **service not joined**',
    );
    expect(text({ ran: true, shift: '-5s', measured, truth: { ...truth, ghostCommits: 0 }, agrees: false, confirmed: 1, ruledOut: 0, joined: true })).toBe('**1** / 0 ghost, 1 confirmed, 0 ruled out; **disagrees**');
    expect(text({ ran: true, shift: '-5s', measured: { ...measured, ghostCommits: 0, possibleGhostCommits: 1 }, truth, agrees: true, joined: true })).toBe(
      '0 (+1 possible) ghost, 0 confirmed, 0 ruled out; **not decided by the service**',
    );
    expect(text({ ran: false, shift: '-5s', error: 'boom' })).toBe('did not run: boom');
    expect(text(undefined)).toBe('–');
  });
});
