import { describe, expect, it } from 'vitest';
import { truthAfterStop, type AppRun } from '../../scorecard/run-app.js';
import { tokensAgree } from '../../scorecard/scorecard.js';

/**
 * Tokens after Stop, as the server sent them: those sent between the app's Stop and the moment it acted on it
 * (a loop that leaves the stream at its next chunk) are out of any trace's sight, and the agreement allows them.
 */
const run = (out: Record<string, unknown>, sentNs: number[]): AppRun =>
  ({ out, report: undefined as never, requests: [{ outputTokensSentNs: sentNs.map(BigInt) }], effects: [], stderr: '', code: 0, traces: '' }) as unknown as AppRun;

describe('tokens after Stop, the ground truth', () => {
  it('counts the tokens sent between the Stop and the moment the app acted on it apart', () => {
    const sent = [90, 100, 110, 120, 130, 140];
    expect(truthAfterStop(run({ stopNs: '100' }, sent))).toMatchObject({ outputTokensSent: 4 });
    expect(truthAfterStop(run({ stopNs: '100' }, sent)).outputTokensOutOfSight).toBeUndefined();
    expect(truthAfterStop(run({ stopNs: '100', actedNs: '130' }, sent))).toMatchObject({ outputTokensSent: 4, outputTokensOutOfSight: 3 });
  });

  it('agrees within the tolerance of what was sent, or of that less what the app let through before it acted', () => {
    // 6 sent after the Stop, 5 of them before the app left the stream: afterstop, which dates the Stop when the app
    // leaves, may see as few as 0 (0 to 8 agree); with none out of sight, 4 to 8 (the tolerance is 2).
    expect([0, 3, 4, 8, 9].map((m) => tokensAgree(m, { outputTokensSent: 6, outputTokensOutOfSight: 5 }))).toEqual([true, true, true, true, false]);
    expect([0, 3, 4, 8, 9].map((m) => tokensAgree(m, { outputTokensSent: 6 }))).toEqual([false, false, true, true, false]);
  });
});
