import { describe, expect, it } from 'vitest';
import { Ledger, ledgerFromJSON } from '../../simulator/ledger.js';

describe('Ledger', () => {
  it('serialises bigint times as decimal strings and round-trips', () => {
    const ledger = new Ledger();
    ledger.addModelRequest({
      id: 'chatcmpl-1',
      api: 'openai-chat',
      model: 'm',
      stream: true,
      startNs: 1_700_000_000_000_000_001n,
      endNs: 1_700_000_000_500_000_000n,
      inputTokens: 3,
      outputTokensGenerated: 5,
      outputTokensSent: 4,
      outputTokensSentNs: [1_700_000_000_100_000_000n, 1_700_000_000_200_000_000n, 1_700_000_000_300_000_000n, 1_700_000_000_400_000_000n],
      clientClosedEarly: true,
      toolCalls: [{ id: 'call_1', name: 'x' }],
      status: 200,
    });
    ledger.addEffect({
      id: 'eff_1',
      name: 'pay',
      idempotencyKey: null,
      receivedNs: 1_700_000_000_000_000_002n,
      committedNs: null,
      outcome: 'abandoned',
      clientClosedBeforeCommit: true,
    });
    const text = JSON.stringify(ledger);
    const json = JSON.parse(text);
    expect(json.modelRequests[0].startNs).toBe('1700000000000000001');
    expect(json.effects[0].committedNs).toBeNull();
    expect(json.modelRequests[0].outputTokensSentNs[0]).toBe('1700000000100000000');
    const back = ledgerFromJSON(json);
    expect(back.modelRequests[0]!.endNs).toBe(1_700_000_000_500_000_000n);
    expect(back).toEqual({ modelRequests: ledger.modelRequests, effects: ledger.effects });
  });

  it('stores copies, so later mutation of the input does not change the record', () => {
    const ledger = new Ledger();
    const toolCalls = [{ id: 'call_1', name: 'x' }];
    const rec = {
      id: 'r',
      api: 'anthropic-messages' as const,
      model: 'm',
      stream: false,
      startNs: 1n,
      endNs: 2n,
      inputTokens: 0,
      outputTokensGenerated: 0,
      outputTokensSent: 0,
      outputTokensSentNs: [],
      clientClosedEarly: false,
      toolCalls,
      status: 200,
    };
    ledger.addModelRequest(rec);
    toolCalls.push({ id: 'call_2', name: 'y' });
    rec.status = 500;
    expect(ledger.modelRequests[0]!.toolCalls).toHaveLength(1);
    expect(ledger.modelRequests[0]!.status).toBe(200);
  });
});
