import * as fs from 'node:fs';

/**
 * Synthetic OTLP/JSON lines, shaped like what afterstop's file exporter
 * writes: per run an invoke_agent span, a model call, a tool call with its
 * start and commit markers, and for one run in four a Stop (request, ack,
 * settle markers, a model stream in flight, a ghost commit). About 9.5 spans
 * per run; 512 spans per line, as the exporter batches them.
 */
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function attr(key: string, value: string | number | boolean): unknown {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
}

function span(traceId: string, spanId: string, parent: string, name: string, startNs: bigint, endNs: bigint, attrs: unknown[], status: Record<string, unknown> = {}): unknown {
  return { traceId, spanId, parentSpanId: parent, name, kind: 1, startTimeUnixNano: String(startNs), endTimeUnixNano: String(endNs), attributes: attrs, status };
}

export function* runSpans(i: number, baseNs: bigint): Generator<unknown> {
  const traceId = hex(i + 1, 32);
  const runId = hex(i * 16 + 1, 16);
  const t0 = baseNs + BigInt(i) * 10_000_000n;
  const ms = (n: number): bigint => t0 + BigInt(Math.round(n * 1e6));
  const conversation = `conv-${i >> 2}`;
  const common = [attr('afterstop.run.id', runId), attr('gen_ai.conversation.id', conversation), attr('gen_ai.agent.name', `agent-${i % 3}`), attr('afterstop.framework', 'manual')];
  const stopped = i % 4 === 1;
  let id = i * 16 + 2;
  const next = (): string => hex(id++, 16);
  yield span(traceId, runId, '', `invoke_agent agent-${i % 3}`, ms(0), ms(900), [...common, attr('gen_ai.operation.name', 'invoke_agent'), attr('afterstop.run.outcome', stopped ? 'cancelled' : 'completed')]);
  yield span(traceId, next(), runId, 'chat gpt-4o', ms(0), ms(stopped ? 700 : 300), [
    ...common,
    attr('gen_ai.operation.name', 'chat'),
    attr('gen_ai.provider.name', 'openai'),
    attr('gen_ai.request.model', 'gpt-4o'),
    attr('gen_ai.usage.input_tokens', 800),
    attr('gen_ai.usage.output_tokens', 120),
    attr('afterstop.model.usage_source', 'provider'),
    attr('gen_ai.response.time_to_first_chunk', 0.05),
  ]);
  const callId = `call_${i}`;
  yield span(traceId, next(), runId, 'afterstop.tool.start', ms(310), ms(310), [...common, attr('gen_ai.tool.name', 'send_email'), attr('gen_ai.tool.call.id', callId)]);
  const toolId = next();
  yield span(traceId, toolId, runId, 'execute_tool send_email', ms(310), ms(800), [
    ...common,
    attr('gen_ai.operation.name', 'execute_tool'),
    attr('gen_ai.tool.name', 'send_email'),
    attr('gen_ai.tool.call.id', callId),
    attr('afterstop.tool.effect', 'irreversible'),
    attr('afterstop.tool.result', stopped ? 'late' : 'delivered'),
  ]);
  yield span(traceId, next(), toolId, 'afterstop.tool.commit', ms(780), ms(780), [
    ...common,
    attr('gen_ai.tool.name', 'send_email'),
    attr('gen_ai.tool.call.id', callId),
    attr('afterstop.tool.effect', 'irreversible'),
    attr('afterstop.cancel.state', stopped ? 'acknowledged' : 'none'),
  ]);
  yield span(traceId, next(), runId, 'afterstop.steer.enqueue', ms(400), ms(400), [...common, attr('afterstop.steer.id', `s${i}`)]);
  yield span(traceId, next(), runId, 'afterstop.steer.inject', ms(450), ms(450), [...common, attr('afterstop.steer.id', `s${i}`), attr('afterstop.steer.position', 'between_steps')]);
  if (stopped) {
    yield span(traceId, next(), runId, 'afterstop.cancel.request', ms(500), ms(500), [
      ...common,
      attr('afterstop.cancel.id', `k${i}`),
      attr('afterstop.cancel.source', 'user'),
      attr('afterstop.inflight.tool_calls', 1),
      attr('afterstop.inflight.model_calls', 1),
    ]);
    yield span(traceId, next(), runId, 'afterstop.cancel.ack', ms(520), ms(520), [...common, attr('afterstop.cancel.id', `k${i}`), attr('afterstop.cancel.outcome', 'stopped')]);
    yield span(traceId, next(), runId, 'afterstop.cancel.settle', ms(800), ms(800), [...common, attr('afterstop.cancel.id', `k${i}`), attr('afterstop.cancel.unsettled', 0)]);
  }
}

/** Write about `spans` spans to `file`; returns how many were written. */
export function generateTraces(file: string, spans: number, baseNs = 1_790_000_000_000_000_000n): number {
  const out = fs.openSync(file, 'w');
  const resource = { attributes: [attr('service.name', 'bench-agent'), attr('afterstop.schema.version', '0.1')] };
  let batch: unknown[] = [];
  let written = 0;
  const flush = (): void => {
    if (batch.length === 0) return;
    fs.writeSync(out, `${JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'afterstop', version: '0.1.0' }, spans: batch }] }] })}\n`);
    written += batch.length;
    batch = [];
  };
  for (let i = 0; written + batch.length < spans; i++) {
    for (const s of runSpans(i, baseNs)) {
      batch.push(s);
      if (batch.length === 512) flush();
    }
  }
  flush();
  fs.closeSync(out);
  return written;
}
