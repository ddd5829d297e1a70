import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderScorecard } from '../../scorecard/markdown.js';
import { runScorecard, TRACED_SHIFT } from '../../scorecard/scorecard.js';

/**
 * The scorecard's "service traced" run (issue 49): a "tool honours the signal" cell once more, its tool's effect
 * service traced by OpenTelemetry (test/fixtures/witness/traced-service.mjs) with its clock 5 s behind. The tool's
 * request carries its trace context, the service's spans join it, and its witness makes the possible ghost known.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the scorecard against a traced service', () => {
  it('a cell whose tool honours the signal: the service’s spans join the tool’s request and its work confirms the ghost the ledger saw', async () => {
    const card = await runScorecard(root, { only: (f) => f === 'Vercel AI SDK, generateText', guard: false });
    expect(card.cells.map((c) => [c.moment, c.ran, c.traced !== undefined])).toEqual([
      ['stream', true, false],
      ['tool-honours', true, true],
    ]);
    const cell = card.cells[1]!;
    // Without the witness: the request was cut, the e-mail possible.
    expect(cell.measured).toMatchObject({ ghostCommits: 0, possibleGhostCommits: 1 });
    const traced = cell.traced!;
    expect(traced, traced.error).toMatchObject({ ran: true, shift: TRACED_SHIFT, joined: true, agrees: true });
    expect(traced.truth!.ghostCommits, 'the ledger: the e-mail landed after Stop').toBe(1);
    expect(traced.measured).toMatchObject({ ghostCommits: 1, possibleGhostCommits: 0 });
    expect(traced).toMatchObject({ confirmed: 1, ruledOut: 0 });
    expect(renderScorecard(card)).toContain('| 1 ghost, 1 confirmed, 0 ruled out | yes |');
  });
});
