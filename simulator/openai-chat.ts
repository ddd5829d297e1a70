/** POST /v1/chat/completions: the OpenAI Chat Completions wire protocol (JSON and SSE). */
import { nowNs } from './clock.js';
import { generate, startedToolCalls } from './generation.js';
import type { GenerationResult } from './generation.js';
import { ClientConnection, readJsonBody, sendJson, startEventStream } from './http-io.js';
import { rejectedRequest } from './ledger.js';
import { DirectiveError, inputTokensFor, planResponse, textOf } from './script.js';
import type { Piece, ResponsePlan } from './script.js';
import { isRecord, positiveInt } from './route-context.js';
import type { RouteContext } from './route-context.js';

export interface OpenAIError {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

interface ChatRequest {
  model: string;
  messages: Record<string, unknown>[];
  stream: boolean;
  includeUsage: boolean;
  maxTokens: number | undefined;
}

export function openAIErrorBody(e: OpenAIError): { error: Omit<OpenAIError, 'status'> } {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
}

function invalid(message: string, param: string | null, code: string | null = null): OpenAIError {
  return { status: 400, message, type: 'invalid_request_error', param, code };
}

/** Text carried by an OpenAI message content (string or array of parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function toolCallsOf(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
}

/** Validates like the real API; returns the parsed request or the error to answer. */
export function validateChatRequest(body: unknown): ChatRequest | OpenAIError {
  if (!isRecord(body)) return invalid('The request body must be a JSON object.', null);
  if (typeof body.model !== 'string' || body.model === '') return invalid('you must provide a model parameter', null);
  if (body.messages === undefined) {
    return invalid("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  }
  if (!Array.isArray(body.messages)) return invalid("Invalid type for 'messages': expected an array.", 'messages');
  if (body.messages.length === 0) return invalid("[] is too short - 'messages'", 'messages');
  const messages: Record<string, unknown>[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || typeof m.role !== 'string') return invalid(`Invalid value for 'messages[${i}]'.`, `messages.[${i}]`);
    messages.push(m);
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      return invalid(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    }
    const ids = toolCallsOf(m).map((c) => String(c.id));
    if (m.role !== 'assistant' || ids.length === 0) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) {
      const toolCallId = String(messages[j]!.tool_call_id);
      if (!ids.includes(toolCallId)) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${j}].role`,
        );
      }
      answered.add(toolCallId);
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          `The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        'messages',
      );
    }
    i = j - 1;
  }
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  return {
    model: body.model,
    messages,
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    maxTokens: positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens),
  };
}

/** Characters of all message text (contents, tool call names and arguments). */
function inputChars(messages: readonly Record<string, unknown>[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += contentText(m.content).length;
    for (const call of toolCallsOf(m)) {
      const fn = isRecord(call.function) ? call.function : {};
      chars += String(fn.name ?? '').length + String(fn.arguments ?? '').length;
    }
  }
  return chars;
}

function scriptInput(messages: readonly Record<string, unknown>[]): { directiveText: string; toolRounds: number } {
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== 'user') lastUser--;
  if (lastUser === -1) return { directiveText: '', toolRounds: 0 };
  const toolRounds = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  return { directiveText: contentText(messages[lastUser]!.content), toolRounds };
}

export async function handleOpenAIChat(ctx: RouteContext): Promise<void> {
  const { res, ledger } = ctx;
  const id = ctx.ids.next('chatcmpl-');
  const fail = (e: OpenAIError, model: string, stream: boolean): void => {
    sendJson(res, e.status, openAIErrorBody(e));
    ledger.addModelRequest(rejectedRequest('openai-chat', { id, model, stream, startNs: ctx.startNs, endNs: nowNs() }, e.status, e.message));
  };

  const body = await readJsonBody(ctx.req, ctx.shutdown);
  if (!body.ok) {
    if (body.status === 499) return; // client left before sending its request: nothing to answer or bill
    const message =
      body.status === 400
        ? `We could not parse the JSON body of your request. (${body.message}) The OpenAI API expects a JSON payload.`
        : body.message;
    return fail({ ...invalid(message, null), status: body.status }, 'unknown', false);
  }
  const raw = isRecord(body.value) ? body.value : {};
  const request = validateChatRequest(body.value);
  if (!('messages' in request)) {
    return fail(request, typeof raw.model === 'string' ? raw.model : 'unknown', raw.stream === true);
  }

  let plan: ResponsePlan;
  try {
    plan = planResponse({ ...scriptInput(request.messages), maxTokens: request.maxTokens }, ctx.timing, () =>
      ctx.ids.next('call_'),
    );
  } catch (err) {
    if (!(err instanceof DirectiveError)) throw err;
    return fail(invalid(`simulator: ${err.message}`, 'messages'), request.model, request.stream);
  }

  const conn = new ClientConnection(res);
  const created = Math.floor(Date.now() / 1000);
  const finishReason = plan.kind === 'tool_calls' ? 'tool_calls' : plan.truncated ? 'length' : 'stop';
  const inputTokens = inputTokensFor(inputChars(request.messages));
  let result: GenerationResult;
  let sent = 0;
  const sentNs: bigint[] = [];

  if (request.stream) {
    startEventStream(res, { 'x-request-id': id });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: request.model,
        system_fingerprint: 'fp_simulator',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(request.includeUsage ? { usage: null } : {}),
      })}\n\n`;
    const roleChunk = chunk({ role: 'assistant', content: plan.kind === 'text' ? '' : null, refusal: null });
    result = await generate(plan.pieces, plan, conn, ctx.shutdown, (piece, index) => {
      if (index === 0) conn.write(roleChunk);
      conn.write(chunk(deltaFor(piece, plan)));
      sentNs.push(nowNs());
    });
    sent = result.emitted;
    if (result.stoppedByShutdown) res.destroy();
    else if (!conn.closed) {
      if (plan.pieces.length === 0) conn.write(roleChunk);
      conn.write(chunk({}, finishReason));
      if (request.includeUsage) {
        const usage = usageOf(inputTokens, result.generated);
        conn.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, system_fingerprint: 'fp_simulator', choices: [], usage })}\n\n`);
      }
      conn.write('data: [DONE]\n\n');
      res.end();
    }
  } else {
    result = await generate(plan.pieces, plan, conn, ctx.shutdown);
    if (result.stoppedByShutdown) {
      sendJson(res, 503, openAIErrorBody({ status: 503, message: 'simulator closed', type: 'server_error', param: null, code: null }));
    } else if (!conn.closed) {
      sendJson(res, 200, completionBody(id, created, request.model, plan, finishReason, usageOf(inputTokens, result.generated)), {
        'x-request-id': id,
      });
      sent = result.generated;
    }
  }

  ledger.addModelRequest({
    id,
    api: 'openai-chat',
    model: request.model,
    stream: request.stream,
    startNs: ctx.startNs,
    endNs: nowNs(),
    inputTokens,
    outputTokensGenerated: result.generated,
    outputTokensSent: sent,
    outputTokensSentNs: request.stream ? sentNs.slice(0, sent) : [],
    // on shutdown the simulator itself cut the connection: only a close before that counts
    clientClosedEarly: result.stoppedByShutdown ? result.clientClosedEarly : conn.closed,
    toolCalls: startedToolCalls(plan.pieces, result.generated, plan.toolCalls),
    status: result.stoppedByShutdown && !request.stream ? 503 : 200,
    ...(result.stoppedByShutdown ? { error: 'simulator closed' } : {}),
  });
}

function deltaFor(piece: Piece, plan: ResponsePlan): Record<string, unknown> {
  if (piece.kind === 'text') return { content: piece.text };
  if (piece.kind === 'tool-start') {
    const call = plan.toolCalls[piece.call]!;
    return { tool_calls: [{ index: piece.call, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] };
  }
  return { tool_calls: [{ index: piece.call, function: { arguments: piece.fragment } }] };
}

function usageOf(prompt: number, completion: number): Record<string, number> {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function completionBody(
  id: string,
  created: number,
  model: string,
  plan: ResponsePlan,
  finishReason: string,
  usage: Record<string, number>,
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.kind === 'text' ? textOf(plan.pieces) : null,
    refusal: null,
  };
  if (plan.kind === 'tool_calls') {
    message.tool_calls = plan.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.argumentsJson },
    }));
  }
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: 'fp_simulator',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

