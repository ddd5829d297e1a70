/** POST /v1/chat/completions: the OpenAI Chat Completions wire protocol (JSON and SSE). */
import { runExchange } from './exchange.js';
import { ClientConnection } from './http-io.js';
import { claimedModel, contentText, invalidRequest as invalid, readOpenAIBody, refuse, SIMULATOR_CLOSED } from './openai-common.js';
import type { OpenAIError } from './openai-common.js';
import { DirectiveError, inputTokensFor, planResponse, textOf } from './script.js';
import type { Piece, ResponsePlan } from './script.js';
import { isRecord, positiveInt } from './route-context.js';
import type { RouteContext } from './route-context.js';

interface ChatRequest {
  model: string;
  messages: Record<string, unknown>[];
  stream: boolean;
  includeUsage: boolean;
  maxTokens: number | undefined;
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
      return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
    }
    const ids = toolCallsOf(m).map((c) => String(c.id));
    if (m.role !== 'assistant' || ids.length === 0) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) {
      const toolCallId = String(messages[j]!.tool_call_id);
      if (!ids.includes(toolCallId)) {
        return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${j}].role`);
      }
      answered.add(toolCallId);
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " + `The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
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
  const id = ctx.ids.next('chatcmpl-');
  const body = await readOpenAIBody(ctx, 'openai-chat', id);
  if (!body) return;
  const request = validateChatRequest(body.value);
  if (!('messages' in request)) {
    const { model, stream } = claimedModel(body.value);
    return refuse(ctx, 'openai-chat', id, request, model, stream);
  }

  let plan: ResponsePlan;
  try {
    plan = planResponse({ ...scriptInput(request.messages), maxTokens: request.maxTokens }, ctx.timing, () => ctx.ids.next('call_'));
  } catch (err) {
    if (!(err instanceof DirectiveError)) throw err;
    return refuse(ctx, 'openai-chat', id, invalid(`simulator: ${err.message}`, 'messages'), request.model, request.stream);
  }

  const conn = new ClientConnection(ctx.res);
  const created = Math.floor(Date.now() / 1000);
  const finishReason = plan.kind === 'tool_calls' ? 'tool_calls' : plan.truncated ? 'length' : 'stop';
  const inputTokens = inputTokensFor(inputChars(request.messages));
  const chunkBase = { id, object: 'chat.completion.chunk', created, model: request.model, system_fingerprint: 'fp_simulator' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({
      ...chunkBase,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(request.includeUsage ? { usage: null } : {}),
    })}\n\n`;
  const roleChunk = chunk({ role: 'assistant', content: plan.kind === 'text' ? '' : null, refusal: null });

  await runExchange({
    ctx,
    conn,
    api: 'openai-chat',
    id,
    model: request.model,
    stream: request.stream,
    plan,
    inputTokens,
    toolResultIds: request.messages.filter((m) => m.role === 'tool').map((m) => String(m.tool_call_id)),
    headers: { 'x-request-id': id },
    writeToken: (piece, index) => {
      if (index === 0) conn.write(roleChunk);
      conn.write(chunk(deltaFor(piece, plan)));
    },
    writeEnd: (result) => {
      if (plan.pieces.length === 0) conn.write(roleChunk);
      conn.write(chunk({}, finishReason));
      if (request.includeUsage) {
        conn.write(`data: ${JSON.stringify({ ...chunkBase, choices: [], usage: usageOf(inputTokens, result.generated) })}\n\n`);
      }
      conn.write('data: [DONE]\n\n');
    },
    body: (result) => completionBody(id, created, request.model, plan, finishReason, usageOf(inputTokens, result.generated)),
    closedBody: SIMULATOR_CLOSED,
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

function completionBody(id: string, created: number, model: string, plan: ResponsePlan, finishReason: string, usage: Record<string, number>): Record<string, unknown> {
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
