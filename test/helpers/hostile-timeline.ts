import { serviceScenario } from './service-trace.js';
import { traces } from './trace-builder.js';

/**
 * Trace files whose names and timings try to make a timeline's labels collide:
 * very long names, right-to-left text, emoji, combining marks, zero-width
 * characters, markup (`<script>`, `</text>`), names alike but at their end,
 * many calls in parallel, the Stop, ack and settle a few ms apart, a commit at
 * the run's last instant, a service whose name is markup. One file per scenario.
 */
const LONG = `send_a_very_long_named_email_to_every_customer_of_the_account_${'x'.repeat(160)}`;
const RTL = 'إرسال_البريد_الإلكتروني_إلى_العميل';
const EMOJI = '📧🚀💥 send 👩‍👩‍👧‍👦 email 🏳️‍🌈';
const COMBINING = 'ś̷̡̛̞e̵̢̛͓n̶̨̛̙d̸̡̛̫_̷̢̛͉m̵̡̛̠a̶̢̛͎i̷̡̛͈l̸̢̛̜';
const ZERO_WIDTH = 'send\u200b\u200b\u200b\u200b_\u200d\u200c\u2060email\u200f';
const MARKUP = '<script>window.__xss=1</script></text><text x="0">injected</text>';
export const HOSTILE_NAMES = [LONG, RTL, EMOJI, COMBINING, ZERO_WIDTH, MARKUP];

export function hostileTraces(): string[] {
  const files: string[] = [];

  // Every hostile name on a tool, a model, the agent and conversation; Stop, ack and settle 3 ms apart; an orphan;
  // a child process outliving the run; a ghost commit at the run's last instant.
  {
    const t = traces();
    const r = t.run({ conversation: `${RTL} ${EMOJI}`, agent: MARKUP, service: LONG, startMs: -400, endMs: 260, outcome: 'cancelled' });
    r.model({ startMs: -390, endMs: -250, model: `${LONG}-model`, input: 100, output: 20 });
    r.model({ startMs: -20, endMs: 40, model: EMOJI, input: 50, output: 30, afterCancel: 12 });
    HOSTILE_NAMES.forEach((name, i) => {
      const callId = `h${i}`;
      r.tool({
        name,
        callId,
        startMs: -240 + i * 15,
        endMs: i % 2 === 0 ? 20 + i * 30 : -100 + i * 5,
        effect: i % 3 === 0 ? 'irreversible' : i % 3 === 1 ? undefined : 'read_only',
        result: i === 1 ? 'dropped' : 'delivered',
      });
    });
    r.commit({ callId: 'h0', atMs: 200, evidence: 'response', roundTripMs: 30 });
    r.commit({ callId: 'h2', atMs: 260, evidence: 'response', roundTripMs: 8 });
    r.cancelRequest(0);
    r.ack(3);
    r.settle(6);
    r.processOrphan(5);
    r.steerDrop(MARKUP, 4);
    r.tool({ name: `${RTL}_never_ended`, callId: 'never', startMs: -10, effect: 'irreversible' });
    files.push(t.write('hostile-names.jsonl'));
  }

  // Many calls in parallel whose names differ only at their end, all in flight at Stop, and commits close together.
  {
    const t = traces();
    const r = t.run({ conversation: 'parallel', startMs: -300, endMs: 500, outcome: 'cancelled' });
    r.model({ startMs: -300, endMs: -250, model: 'gpt-4o', input: 10, output: 10 });
    for (let i = 0; i < 40; i++) {
      const callId = `p${i}`;
      r.tool({ name: `update_customer_record_in_the_primary_database_region_${i}`, callId, startMs: -200 + (i % 4), endMs: 100 + i * 5, effect: 'irreversible' });
      if (i % 5 === 0) r.commit({ callId, atMs: 90 + i, evidence: 'response', roundTripMs: 20 });
    }
    r.cancelRequest(0);
    r.ack(1);
    r.settle(2);
    files.push(t.write('hostile-parallel.jsonl'));
  }

  // A run stopped and acknowledged in the same millisecond, never settled; a run that never ended; one not cancelled.
  {
    const t = traces();
    const r = t.run({ conversation: 'same-ms', startMs: -50, endMs: 0.5, outcome: 'cancelled' });
    r.tool({ name: 'charge_card', callId: 'c1', startMs: -40, endMs: 0.5, effect: 'irreversible' });
    r.commit({ callId: 'c1', atMs: 0.5, evidence: 'request_sent', unansweredMs: 30 });
    r.cancelRequest(0);
    r.ack(0.2);
    const open = t.run({ conversation: 'open', startMs: 1000, exported: false });
    open.tool({ name: ZERO_WIDTH, callId: 'o1', startMs: 1010, effect: 'irreversible' });
    const done = t.run({ conversation: 'done', startMs: 2000, endMs: 2100, outcome: 'completed' });
    done.tool({ name: COMBINING, callId: 'd1', startMs: 2010, endMs: 2090, effect: 'read_only' });
    files.push(t.write('hostile-edges.jsonl'));
  }

  // The AI SDK's own telemetry on beside afterstop: its ai.toolCall span and afterstop's tool span are one call.
  {
    const t = traces();
    const r = t.run({ conversation: 'telemetry', framework: 'vercel-ai', startMs: -300, endMs: 400, outcome: 'cancelled' });
    r.model({ startMs: -300, endMs: -120, model: 'gpt-4o', input: 20, output: 10 });
    r.tool({ name: 'send_email', callId: 'call_1', startMs: -110, endMs: 310, effect: 'irreversible', result: 'dropped' });
    r.span({ name: 'ai.toolCall', startMs: -111, endMs: 311, scope: 'ai', attrs: { 'ai.toolCall.name': 'send_email', 'ai.toolCall.id': 'call_1', 'ai.operationId': 'ai.toolCall' } });
    r.commit({ callId: 'call_1', atMs: 305, evidence: 'response', roundTripMs: 40 });
    r.cancelRequest(0);
    r.settle(306);
    r.ack(309);
    files.push(t.write('hostile-ai-sdk-telemetry.jsonl'));
  }

  // A service traced in its own process whose name is markup, under a tool call (issue 49's lanes).
  files.push(serviceScenario({ skewMs: 5000, answered: true, service: MARKUP, writeName: LONG }).t.write('hostile-service.jsonl'));
  return files;
}
