import { ns, traces, type Run, type Traces } from './trace-builder.js';

/**
 * A cancelled run whose tool's request reached a service traced in its own process (issue 49), as the trace
 * files hold it: the agent's tool call `send_email` (−200 → +20 ms, cancelled), afterstop's request span under it
 * (CLIENT `POST`, −150 → +20 ms, answered or not), and in the service's process (its own service.name, so its own
 * process key) whose clock runs `skewMs` ahead: its entry (SERVER `POST /send`) at agent −100 → +330 ms and its
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
  const requestSpanId = run.span({
    name: 'POST',
    kind: 3,
    startMs: -150,
    endMs: 20,
    parent: toolSpanId,
    attrs: {
      'http.request.method': 'POST',
      'server.address': 'mail.example.com',
      'server.port': 443,
      'url.scheme': 'https',
      'afterstop.request.trace_context': 'injected',
      ...(o.answered === true ? { 'http.response.status_code': 200 } : {}),
    },
  });
  const entrySpanId = t.newSpanId();
  t.add(service, {
    traceId: run.traceId,
    spanId: entrySpanId,
    parentSpanId: requestSpanId,
    name: 'POST /send',
    kind: 2,
    startNs: ns(-100 + skew),
    endNs: ns(330 + skew),
    attrs: [
      ['http.request.method', 'POST'],
      ['http.response.status_code', 200],
    ],
    scope: '@opentelemetry/instrumentation-http',
  });
  const writeSpanId = t.newSpanId();
  t.add(service, {
    traceId: run.traceId,
    spanId: writeSpanId,
    parentSpanId: entrySpanId,
    name: o.writeName ?? 'INSERT outbox',
    kind: 3,
    startNs: ns(280 + skew),
    endNs: ns(312 + skew),
    attrs: [['db.system.name', 'postgresql']],
    ...(o.writeFails === true ? { status: 'error' as const } : {}),
    scope: 'mailer-app',
  });
  const commitSpanId = run.commit({ callId: 'c1', atMs: 20, evidence: 'request_sent', unansweredMs: 120, attrs: { 'afterstop.tool.commit.request_span_id': requestSpanId } });
  return { t, run, toolSpanId, requestSpanId, entrySpanId, writeSpanId, commitSpanId };
}
