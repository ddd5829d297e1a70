import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule } from '../../../test/helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';

/**
 * The fence never holds telemetry's own requests: with the OTLP/HTTP exporter
 * (node:http) and the fence on, a stopped run's tool that commits flushes its
 * evidence from inside its body (the tool's context): the export must reach
 * the collector, while the tool's own POST after the Stop is refused. A child
 * process with the compiled package, as a user runs it.
 */
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('the fence and the exporter', () => {
  it('a flush from a stopped tool’s body is exported; the tool’s own POST is refused', async () => {
    const result = await runModule(
      `import { startRun, flush, shutdown, CommitFencedError } from '${distModule('instrumentation/index.js')}';
       const run = startRun({ conversationId: 'fence-export' });
       await run.cancel();
       const outcome = await run.tool({ name: 'send_email', callId: 'call_x' }, async ({ commit }) => {
         await commit(); // a manual commit after Stop: its evidence is flushed from here, through node:http
         try { await fetch('${receiver.url}/effects/send', { method: 'POST', body: '{}' }); return 'sent'; }
         catch (e) { return CommitFencedError.isInstance(e) ? 'fenced' : e.name; }
       });
       run.end();
       await flush(5000);
       await shutdown();
       console.log(JSON.stringify({ outcome }));`,
      { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, AFTERSTOP_GUARD_FENCE: 'true' }, timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(lastJson<{ outcome: string }>(result).outcome).toBe('fenced');
    const spans = await receiver.waitFor((s) => s.some((x) => x.name === 'afterstop.tool.commit.prevented'));
    expect(spans.filter((s) => s.name === 'afterstop.tool.commit').map((s) => s.attributes['afterstop.cancel.state'])).toEqual(['requested']);
  });
});
