import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { captureTraces, only, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

describe('history repair and compensation markers', () => {
  it('records the strategy and the tool call ids it covered', async () => {
    const run = startRun({ conversationId: 'conv-r' });
    run.repairHistory({ strategy: 'synthetic_result', toolCallIds: ['call_1', 'call_2'] });
    run.end();
    const repair = only(await capture.spans(run.id), 'afterstop.history.repair');
    expect(repair.attributes).toMatchObject({
      'afterstop.repair.strategy': 'synthetic_result',
      'afterstop.repair.tool_call_ids': ['call_1', 'call_2'],
      'gen_ai.conversation.id': 'conv-r',
      'afterstop.run.id': run.id,
    });
  });

  it('records a compensation for an earlier commit', async () => {
    const run = startRun({});
    run.compensate({ toolCallId: 'call_1', outcome: 'succeeded', toolName: 'send_email' });
    run.end();
    const marker = only(await capture.spans(run.id), 'afterstop.tool.compensate');
    expect(marker.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_1',
      'afterstop.compensation.outcome': 'succeeded',
      'gen_ai.tool.name': 'send_email',
    });
  });
});
