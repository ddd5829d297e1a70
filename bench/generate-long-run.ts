import * as fs from 'node:fs';

/**
 * One stopped run with many tool calls, as OTLP/JSON lines: its invoke_agent
 * span, per call a start marker, the tool span and a commit, a model call
 * every 50 calls, and a Stop (request, ack) halfway. Call i starts at i × 10 ms,
 * commits at + 5 ms and ends at + 8 ms; the Stop is at calls × 5 ms, the ack
 * 20 ms later. For `afterstop explain` and the HTML timelines at scale
 * (bench/large-inputs.ts, test/analyzer/explain-long-run.test.ts).
 */
export const LONG_RUN_ID = '0000000000000001';
export const LONG_RUN_TRACE = '00000000000000000000000000000007';

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const attr = (key: string, value: string | number): unknown => (typeof value === 'string' ? { key, value: { stringValue: value } } : { key, value: { intValue: String(value) } });

/** Write the run with `calls` tool calls to `file`; returns the Stop's offset from the run's start, in ms. */
export function writeLongRun(file: string, calls: number, baseNs = 1_790_000_000_000_000_000n): number {
  const ms = (n: number): string => String(baseNs + BigInt(Math.round(n * 1e6)));
  const common = [attr('afterstop.run.id', LONG_RUN_ID), attr('gen_ai.agent.name', 'long'), attr('afterstop.framework', 'manual')];
  const span = (spanId: string, parent: string, name: string, start: number, end: number, attrs: unknown[]): unknown => ({
    traceId: LONG_RUN_TRACE,
    spanId,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: ms(start),
    endTimeUnixNano: ms(end),
    attributes: [...common, ...attrs],
    status: {},
  });
  const out = fs.openSync(file, 'w');
  let batch: unknown[] = [];
  const flush = (): void => {
    if (batch.length === 0) return;
    fs.writeSync(out, `${JSON.stringify({ resourceSpans: [{ resource: { attributes: [attr('service.name', 'long-agent')] }, scopeSpans: [{ scope: { name: 'afterstop' }, spans: batch }] }] })}\n`);
    batch = [];
  };
  const push = (s: unknown): void => {
    batch.push(s);
    if (batch.length >= 512) flush();
  };
  const stopAt = calls * 5;
  push(span(LONG_RUN_ID, '', 'invoke_agent long', 0, calls * 10 + 100, [attr('gen_ai.operation.name', 'invoke_agent'), attr('afterstop.run.outcome', 'cancelled')]));
  let id = 2;
  for (let i = 0; i < calls; i++) {
    const s = i * 10;
    const tool = `tool_${i % 7}`;
    const call = [attr('gen_ai.tool.name', tool), attr('gen_ai.tool.call.id', `call_${i}`)];
    push(span(hex(id++, 16), LONG_RUN_ID, 'afterstop.tool.start', s, s, call));
    const toolId = hex(id++, 16);
    push(span(toolId, LONG_RUN_ID, `execute_tool ${tool}`, s, s + 8, [...call, attr('gen_ai.operation.name', 'execute_tool'), attr('afterstop.tool.effect', 'irreversible'), attr('afterstop.tool.result', 'delivered')]));
    push(span(hex(id++, 16), toolId, 'afterstop.tool.commit', s + 5, s + 5, [...call, attr('afterstop.tool.effect', 'irreversible')]));
    if (i % 50 === 0) {
      push(
        span(hex(id++, 16), LONG_RUN_ID, 'chat gpt-4o', s, s + 9, [
          attr('gen_ai.operation.name', 'chat'),
          attr('gen_ai.provider.name', 'openai'),
          attr('gen_ai.request.model', 'gpt-4o'),
          attr('gen_ai.usage.input_tokens', 100),
          attr('gen_ai.usage.output_tokens', 10),
        ]),
      );
    }
  }
  push(span(hex(id++, 16), LONG_RUN_ID, 'afterstop.cancel.request', stopAt, stopAt, [attr('afterstop.cancel.id', 'k1'), attr('afterstop.cancel.source', 'user')]));
  push(span(hex(id++, 16), LONG_RUN_ID, 'afterstop.cancel.ack', stopAt + 20, stopAt + 20, [attr('afterstop.cancel.id', 'k1'), attr('afterstop.cancel.outcome', 'stopped')]));
  flush();
  fs.closeSync(out);
  return stopAt;
}
