/**
 * Traces of Python agent frameworks, built from what their instrumentations
 * emit when a run is stopped (read from their source and test snapshots,
 * 2026-08; issue "Python agents and any other language"): two turns of one
 * conversation, the first stopped at 600 ms while the send_email tool runs
 * (its call id call_1), the second, 5 s later, refused by the provider with a
 * 400 for the tool call left without a result.
 *
 * `markers: true` adds what an app records with its own OpenTelemetry API
 * following the recipe of docs/manual-api.md ("Emitting afterstop's markers from any
 * language"): the run id, conversation and framework on its spans, the
 * cancel request when the user pressed Stop, the cancel ack when its loop
 * stopped, tool start and commit around the side effect, and an
 * execute_tool span saying what became of the result.
 */
export type PythonFramework = 'pydantic-ai' | 'crewai' | 'autogen' | 'openai-agents-python';
export const PYTHON_FRAMEWORKS: PythonFramework[] = ['pydantic-ai', 'crewai', 'autogen', 'openai-agents-python'];

const BASE_MS = 1_791_000_000_000;
const ns = (ms: number): string => (BigInt(BASE_MS) * 1_000_000n + BigInt(Math.round(ms * 1e6))).toString();

type Value = string | number | boolean;
interface SpanSpec {
  trace: string;
  id: string;
  parent?: string;
  name: string;
  kind?: number;
  start: number;
  end: number;
  attrs?: Record<string, Value>;
  status?: { code: 1 | 2; message?: string };
  exception?: { type: string; message: string };
}
const kv = (attrs: Record<string, Value>) => Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: String(v) } }));
const span = (s: SpanSpec) => ({
  traceId: s.trace,
  spanId: s.id,
  parentSpanId: s.parent ?? '',
  name: s.name,
  kind: s.kind ?? 1,
  startTimeUnixNano: ns(s.start),
  endTimeUnixNano: ns(s.end),
  attributes: kv(s.attrs ?? {}),
  ...(s.exception ? { events: [{ timeUnixNano: ns(s.end), name: 'exception', attributes: kv({ 'exception.type': s.exception.type, 'exception.message': s.exception.message }) }] } : {}),
  status: s.status ?? {},
});
const line = (service: string, scopes: { scope: string; spans: SpanSpec[] }[]): string =>
  JSON.stringify({
    resourceSpans: [{ resource: { attributes: kv({ 'service.name': service }) }, scopeSpans: scopes.filter((s) => s.spans.length > 0).map((s) => ({ scope: { name: s.scope }, spans: s.spans.map(span) })) }],
  });

const T1 = 'a1000000000000000000000000000001';
const T2 = 'a1000000000000000000000000000002';
const OPENAI_400 = "Error code: 400 - {'error': {'message': 'No tool output found for function call call_1.', 'type': 'invalid_request_error'}}";
const CHAT_400 = "Error code: 400 - An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1";

/** The recipe's markers of turn 1, under the run span `run` (it may never have been exported). */
function markers(run: string, framework: string, opts: { ack?: number; commit?: number; result: 'cancelled' | 'late' }): SpanSpec[] {
  const common = { 'afterstop.run.id': run, 'gen_ai.conversation.id': 'conv-py', 'afterstop.framework': framework };
  const tool = { 'gen_ai.tool.name': 'send_email', 'gen_ai.tool.call.id': 'call_1' };
  return [
    { trace: T1, id: 'b000000000000001', parent: run, name: 'afterstop.tool.start', start: 450, end: 450, attrs: { ...common, ...tool } },
    {
      trace: T1,
      id: 'b000000000000002',
      parent: run,
      name: 'execute_tool send_email',
      start: 450,
      end: opts.commit ?? 605,
      attrs: { ...common, ...tool, 'gen_ai.operation.name': 'execute_tool', 'afterstop.tool.effect': 'irreversible', 'afterstop.tool.result': opts.result },
    },
    { trace: T1, id: 'b000000000000003', parent: run, name: 'afterstop.cancel.request', start: 600, end: 600, attrs: { ...common, 'afterstop.cancel.source': 'user' } },
    ...(opts.ack === undefined ? [] : [{ trace: T1, id: 'b000000000000004', parent: run, name: 'afterstop.cancel.ack', start: opts.ack, end: opts.ack, attrs: { ...common, 'afterstop.cancel.outcome': 'stopped' } }]),
    ...(opts.commit === undefined
      ? []
      : [
          {
            trace: T1,
            id: 'b000000000000005',
            parent: 'b000000000000002',
            name: 'afterstop.tool.commit',
            start: opts.commit,
            end: opts.commit,
            attrs: { ...common, ...tool, 'afterstop.tool.effect': 'irreversible', 'afterstop.tool.commit.evidence': 'manual' },
          },
        ]),
  ];
}

/** The OTLP/JSON lines of the two turns. */
export function pythonTurns(framework: PythonFramework, options: { markers?: boolean } = {}): string[] {
  const m = options.markers === true;
  switch (framework) {
    case 'pydantic-ai': {
      // The async tool is cancelled (CancelledError event, ERROR); the run span ends UNSET with no event; the loop stops.
      const conv = { 'gen_ai.conversation.id': 'conv-py', 'gen_ai.agent.name': 'support' };
      const run = (trace: string, id: string, start: number, end: number, callId: string): SpanSpec => ({
        trace,
        id,
        name: 'invoke_agent support',
        start,
        end,
        attrs: { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.call.id': callId },
      });
      const chat = (trace: string, id: string, parent: string, start: number, end: number, extra: Partial<SpanSpec> = {}): SpanSpec => ({
        trace,
        id,
        parent,
        name: 'chat gpt-4o',
        kind: 3,
        start,
        end,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.system': 'openai', ...extra.attrs },
        ...extra,
      });
      return [
        line('support-agent', [
          {
            scope: 'pydantic-ai',
            spans: [
              run(T1, 'c000000000000001', 0, 610, 'run-1'),
              chat(T1, 'c000000000000002', 'c000000000000001', 0, 400, { attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.output_tokens': 20 } }),
              {
                trace: T1,
                id: 'c000000000000003',
                parent: 'c000000000000001',
                name: 'execute_tool send_email',
                start: 450,
                end: 605,
                attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'send_email', 'gen_ai.tool.call.id': 'call_1' },
                status: { code: 2 },
                exception: { type: 'asyncio.exceptions.CancelledError', message: '' },
              },
            ],
          },
          { scope: 'afterstop-recipe', spans: m ? markers('c000000000000001', 'pydantic-ai', { ack: 612, result: 'cancelled' }) : [] },
        ]),
        line('support-agent', [
          {
            scope: 'pydantic-ai',
            spans: [
              { ...run(T2, 'c000000000000011', 5000, 5300, 'run-2'), status: { code: 2, message: OPENAI_400 } },
              chat(T2, 'c000000000000012', 'c000000000000011', 5010, 5280, { status: { code: 2, message: OPENAI_400 }, exception: { type: 'openai.BadRequestError', message: OPENAI_400 } }),
            ],
          },
        ]),
      ];
    }
    case 'crewai': {
      // No cancel API: the worker thread runs on. The tool ends OK after Stop (the mail went at 880) and a
      // further model call is billed; nothing in the spans marks the Stop.
      const oi = (kind: string, extra: Record<string, Value> = {}) => ({ 'openinference.span.kind': kind, 'session.id': 'conv-py', ...extra });
      const llm = (trace: string, id: string, parent: string, start: number, end: number, extra: Partial<SpanSpec> = {}): SpanSpec => ({
        trace,
        id,
        parent,
        name: 'litellm.completion',
        kind: 3,
        start,
        end,
        attrs: oi('LLM', { 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt': 50, 'llm.token_count.completion': 20 }),
        ...extra,
      });
      return [
        line('support-crew', [
          {
            scope: 'openinference.instrumentation.crewai',
            spans: [
              { trace: T1, id: 'd000000000000001', name: 'Support.kickoff', start: 0, end: 1500, attrs: oi('AGENT', { 'gen_ai.agent.name': 'support' }) },
              llm(T1, 'd000000000000002', 'd000000000000001', 0, 400),
              { trace: T1, id: 'd000000000000003', parent: 'd000000000000001', name: 'send_email.run', start: 450, end: 900, attrs: oi('TOOL', { 'tool.name': 'send_email' }) },
              llm(T1, 'd000000000000004', 'd000000000000001', 950, 1400),
            ],
          },
          { scope: 'afterstop-recipe', spans: m ? markers('d000000000000001', 'crewai', { commit: 880, result: 'late' }) : [] },
        ]),
        line('support-crew', [
          {
            scope: 'openinference.instrumentation.crewai',
            spans: [
              { trace: T2, id: 'd000000000000011', name: 'Support.kickoff', start: 5000, end: 5300, attrs: oi('AGENT', { 'gen_ai.agent.name': 'support' }), status: { code: 2, message: CHAT_400 } },
              llm(T2, 'd000000000000012', 'd000000000000011', 5010, 5280, { status: { code: 2, message: CHAT_400 } }),
            ],
          },
        ]),
      ];
    }
    case 'autogen': {
      // The tool span ends UNSET at Stop; the agent then hangs, so invoke_agent (e000...01) is never exported.
      // Model spans come from OpenLLMetry. No run or conversation id on AutoGen's spans.
      const ag = { 'gen_ai.system': 'autogen' };
      const chat = (trace: string, id: string, parent: string, start: number, end: number, extra: Partial<SpanSpec> = {}): SpanSpec => ({
        trace,
        id,
        parent,
        name: 'openai.chat',
        kind: 3,
        start,
        end,
        attrs: { 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o', 'llm.request.type': 'chat', 'gen_ai.usage.prompt_tokens': 50, 'gen_ai.usage.completion_tokens': 20 },
        ...extra,
      });
      return [
        line('support-autogen', [
          {
            scope: 'autogen-core',
            spans: [
              {
                trace: T1,
                id: 'e000000000000003',
                parent: 'e000000000000001',
                name: 'execute_tool send_email',
                start: 450,
                end: 600,
                attrs: { ...ag, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'send_email', 'gen_ai.tool.call.id': 'call_1' },
              },
            ],
          },
          { scope: 'opentelemetry.instrumentation.openai', spans: [chat(T1, 'e000000000000002', 'e000000000000001', 0, 400)] },
          { scope: 'afterstop-recipe', spans: m ? markers('e000000000000001', 'autogen', { commit: 590, result: 'cancelled' }) : [] },
        ]),
        line('support-autogen', [
          {
            scope: 'autogen-core',
            spans: [
              {
                trace: T2,
                id: 'e000000000000011',
                name: 'invoke_agent support',
                start: 5000,
                end: 5300,
                attrs: { ...ag, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', ...(m ? { 'gen_ai.conversation.id': 'conv-py' } : {}) },
                status: { code: 2 },
              },
            ],
          },
          { scope: 'opentelemetry.instrumentation.openai', spans: [chat(T2, 'e000000000000012', 'e000000000000011', 5010, 5280, { status: { code: 2, message: CHAT_400 } })] },
        ]),
      ];
    }
    case 'openai-agents-python': {
      // Every span ends OK at the cancel; the only sign is what is missing (the tool span has no output).
      const oi = (kind: string, extra: Record<string, Value> = {}) => ({ 'openinference.span.kind': kind, 'session.id': 'conv-py', ...extra });
      const response = (trace: string, id: string, parent: string, start: number, end: number, extra: Partial<SpanSpec> = {}): SpanSpec => ({
        trace,
        id,
        parent,
        name: 'response',
        kind: 3,
        start,
        end,
        attrs: oi('LLM', { 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt': 50, 'llm.token_count.completion': 20, ...(extra.attrs ?? {}) }),
        ...extra,
      });
      return [
        line('support-agents', [
          {
            scope: 'openinference.instrumentation.openai_agents',
            spans: [
              { trace: T1, id: 'f000000000000001', name: 'Agent workflow', start: 0, end: 610, attrs: oi('CHAIN') },
              { trace: T1, id: 'f000000000000002', parent: 'f000000000000001', name: 'support', start: 0, end: 610, attrs: oi('AGENT', { 'gen_ai.agent.name': 'support' }) },
              response(T1, 'f000000000000003', 'f000000000000002', 0, 400, {
                attrs: oi('LLM', {
                  'llm.model_name': 'gpt-4o',
                  'llm.token_count.prompt': 50,
                  'llm.token_count.completion': 20,
                  'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
                  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'send_email',
                }),
              }),
              { trace: T1, id: 'f000000000000004', parent: 'f000000000000002', name: 'send_email', start: 450, end: 600, attrs: oi('TOOL', { 'tool.name': 'send_email' }) },
            ],
          },
          { scope: 'afterstop-recipe', spans: m ? markers('f000000000000001', 'openai-agents-python', { ack: 608, result: 'cancelled' }) : [] },
        ]),
        line('support-agents', [
          {
            scope: 'openinference.instrumentation.openai_agents',
            spans: [
              { trace: T2, id: 'f000000000000011', name: 'Agent workflow', start: 5000, end: 5300, attrs: oi('CHAIN') },
              { trace: T2, id: 'f000000000000012', parent: 'f000000000000011', name: 'support', start: 5000, end: 5300, attrs: oi('AGENT', { 'gen_ai.agent.name': 'support' }) },
              response(T2, 'f000000000000013', 'f000000000000012', 5010, 5280, { status: { code: 2, message: OPENAI_400 } }),
            ],
          },
        ]),
      ];
    }
  }
}
