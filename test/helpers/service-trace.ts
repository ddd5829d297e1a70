import { traces, type Run, type Traces } from './trace-builder.js';

/**
 * A cancelled run whose tool's request reached a service traced in its own process (issue 49), as the trace
 * files hold it: the agent's tool call `send_email` (−200 → +20 ms, cancelled), afterstop's request span under it
 * (Run.request: CLIENT `POST`, −150 → +20 ms, answered or not), and in the service's process (Run.serviceSpan: its
 * own service.name and service.instance.id `<service>-1`, its process key) whose clock runs `skewMs` ahead: its entry (SERVER `POST /send`) at agent −100 → +330 ms and its
 * database write (`INSERT outbox`, db.system.name postgresql) at +280 → +312 ms, failed when asked; the commit marker
 * of the request (request_sent at +20 ms, 120 ms after its body was sent) names the request span.
 */
export interface ServiceScenario {
  t: Traces;
  run: Run;
  toolSpanId: string;
  requestSpanId: string;
  entrySpanId: string;
  writeSpanId: string;
  commitSpanId: string;
}

export function serviceScenario(o: { skewMs?: number; service?: string; writeName?: string; writeFails?: boolean; answered?: boolean } = {}): ServiceScenario {
  const skew = o.skewMs ?? 5000;
  const service = o.service ?? 'mailer';
  const t = traces();
  const run = t.run({ conversation: 'svc', startMs: -300, endMs: 600, outcome: 'cancelled' });
  run.cancelRequest(0);
  const toolSpanId = run.tool({ name: 'send_email', callId: 'c1', startMs: -200, endMs: 20, effect: 'irreversible', result: 'cancelled', status: 'error' });
  const requestSpanId = run.request({ callId: 'c1', startMs: -150, endMs: 20, ...(o.answered === true ? { status: 200 } : {}) });
  const entrySpanId = run.serviceSpan({
    name: 'POST /send',
    kind: 2,
    parent: requestSpanId,
    startMs: -100 + skew,
    endMs: 330 + skew,
    service,
    attrs: { 'http.request.method': 'POST', 'http.response.status_code': 200 },
  });
  const writeSpanId = run.serviceSpan({
    name: o.writeName ?? 'INSERT outbox',
    kind: 3,
    parent: entrySpanId,
    startMs: 280 + skew,
    endMs: 312 + skew,
    service,
    attrs: { 'db.system.name': 'postgresql' },
    ...(o.writeFails === true ? { status: 'error' as const } : {}),
  });
  const commitSpanId = run.commit({ callId: 'c1', atMs: 20, evidence: 'request_sent', unansweredMs: 120, requestSpanId });
  return { t, run, toolSpanId, requestSpanId, entrySpanId, writeSpanId, commitSpanId };
}
