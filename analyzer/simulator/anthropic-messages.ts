/** POST /v1/messages: the Anthropic Messages wire protocol (JSON and SSE). */
import { nowNs } from './clock.js';
import { runExchange } from './exchange.js';
import { ClientConnection, readJsonBody, sendJson } from './http-io.js';
import { rejectedRequest } from './ledger.js';
import { DirectiveError, inputTokensFor, planResponse, textOf } from './script.js';
import type { Piece, ResponsePlan } from './script.js';
import { isRecord, positiveInt } from './route-context.js';
import type { RouteContext } from './route-context.js';

export interface AnthropicError {
  status: number;
  type: string;
  message: string;
}

interface MessagesRequest {
  model: string;
  system: unknown;
  messages: Record<string, unknown>[];
  stream: boolean;
  maxTokens: number;
}

export function anthropicErrorBody(e: AnthropicError): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: e.type, message: e.message } };
}

function invalid(message: string): AnthropicError {
  return { status: 400, type: 'invalid_request_error', message };
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function idsOf(content: unknown, type: 'tool_use' | 'tool_result'): string[] {
  return blocksOf(content)
    .filter((b) => b.type === type)
    .map((b) => String(type === 'tool_use' ? b.id : b.tool_use_id));
}

/** Text of a content value, excluding tool_use/tool_result blocks. */
function plainText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** Validates like the real API; returns the parsed request or the error to answer. */
export function validateMessagesRequest(body: unknown): MessagesRequest | AnthropicError {
  if (!isRecord(body)) return invalid('Input should be a valid dictionary');
  if (typeof body.model !== 'string' || body.model === '') return invalid('model: Field required');
  const maxTokens = positiveInt(body.max_tokens);
  if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
  if (maxTokens === undefined) return invalid('max_tokens: Input should be a valid positive integer');
  if (body.messages === undefined) return invalid('messages: Field required');
  if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
  if (body.messages.length === 0) return invalid('messages: at least one message is required');
  const messages: Record<string, unknown>[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    messages.push(m);
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') {
      const previousUses = i > 0 && messages[i - 1]!.role === 'assistant' ? idsOf(messages[i - 1]!.content, 'tool_use') : [];
      const blocks = blocksOf(m.content);
      for (const [j, b] of blocks.entries()) {
        if (b.type === 'tool_result' && !previousUses.includes(String(b.tool_use_id))) {
          return invalid(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. ` +
              'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          );
        }
      }
      continue;
    }
    const uses = idsOf(m.content, 'tool_use');
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    const results = next && next.role === 'user' ? idsOf(next.content, 'tool_result') : [];
    const missing = uses.filter((id) => !results.includes(id));
    if (missing.length > 0) {
      return invalid(
        `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
          'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      );
    }
  }
  return { model: body.model, system: body.system, messages, stream: body.stream === true, maxTokens };
}

/** Characters of all message text: system, text blocks, tool inputs and tool results. */
function inputChars(system: unknown, messages: readonly Record<string, unknown>[]): number {
  let chars = plainText(system).length;
  for (const m of messages) {
    chars += plainText(m.content).length;
    for (const b of blocksOf(m.content)) {
      if (b.type === 'tool_use') chars += String(b.name ?? '').length + JSON.stringify(b.input ?? {}).length;
      if (b.type === 'tool_result') chars += plainText(b.content).length;
    }
  }
  return chars;
}

function scriptInput(messages: readonly Record<string, unknown>[]): { directiveText: string; toolRounds: number } {
  let lastUser = messages.length - 1;
  const isUserTurn = (m: Record<string, unknown>): boolean => m.role === 'user' && idsOf(m.content, 'tool_result').length === 0;
  while (lastUser >= 0 && !isUserTurn(messages[lastUser]!)) lastUser--;
  if (lastUser === -1) return { directiveText: '', toolRounds: 0 };
  const toolRounds = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  return { directiveText: plainText(messages[lastUser]!.content), toolRounds };
}

export async function handleAnthropicMessages(ctx: RouteContext): Promise<void> {
  const { res, ledger } = ctx;
  const id = ctx.ids.next('msg_');
  const fail = (e: AnthropicError, model: string, stream: boolean): void => {
    sendJson(res, e.status, anthropicErrorBody(e), { 'request-id': `req_${id}` });
    ledger.addModelRequest(rejectedRequest('anthropic-messages', { id, model, stream, startNs: ctx.startNs, endNs: nowNs() }, e.status, e.message));
  };

  const body = await readJsonBody(ctx.req, ctx.shutdown);
  if (!body.ok) {
    if (body.status === 499) return; // client left before sending its request: nothing to answer or bill
    const message = body.status === 400 ? `There was an issue with your request body: ${body.message}` : body.message;
    return fail({ ...invalid(message), status: body.status }, 'unknown', false);
  }
  const raw = isRecord(body.value) ? body.value : {};
  const request = validateMessagesRequest(body.value);
  if (!('messages' in request)) {
    return fail(request, typeof raw.model === 'string' ? raw.model : 'unknown', raw.stream === true);
  }

  let plan: ResponsePlan;
  try {
    plan = planResponse({ ...scriptInput(request.messages), maxTokens: request.maxTokens }, ctx.timing, () => ctx.ids.next('toolu_'));
  } catch (err) {
    if (!(err instanceof DirectiveError)) throw err;
    return fail(invalid(`simulator: ${err.message}`), request.model, request.stream);
  }

  const conn = new ClientConnection(res);
  const stopReason = plan.kind === 'tool_calls' ? 'tool_use' : plan.truncated ? 'max_tokens' : 'end_turn';
  const inputTokens = inputTokensFor(inputChars(request.system, request.messages));
  const usage = (output: number): Record<string, number> => ({
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  });
  const event = (type: string, data: Record<string, unknown>): void => {
    conn.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  const message = { id, type: 'message', role: 'assistant', model: request.model, content: [], stop_reason: null, stop_sequence: null };
  let block = -1;
  let blockOpen = false;

  await runExchange({
    ctx,
    conn,
    api: 'anthropic-messages',
    id,
    model: request.model,
    stream: request.stream,
    plan,
    inputTokens,
    headers: { 'request-id': `req_${id}` },
    writeStart: () => {
      event('message_start', { message: { ...message, usage: usage(0) } });
      event('ping', {});
    },
    writeToken: (piece: Piece) => {
      if (piece.kind === 'tool-args') {
        event('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece.fragment } });
        return;
      }
      if (piece.kind === 'tool-start' || !blockOpen) {
        if (blockOpen) event('content_block_stop', { index: block });
        block++;
        blockOpen = true;
        const call = piece.kind === 'tool-start' ? plan.toolCalls[piece.call]! : undefined;
        event('content_block_start', {
          index: block,
          content_block: call ? { type: 'tool_use', id: call.id, name: call.name, input: {} } : { type: 'text', text: '' },
        });
      }
      if (piece.kind === 'text') event('content_block_delta', { index: block, delta: { type: 'text_delta', text: piece.text } });
    },
    writeEnd: (result) => {
      if (blockOpen) event('content_block_stop', { index: block });
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: result.generated } });
      event('message_stop', {});
    },
    body: (result) => {
      const content: Record<string, unknown>[] = [];
      if (plan.kind === 'text' && plan.pieces.length > 0) content.push({ type: 'text', text: textOf(plan.pieces) });
      for (const c of plan.toolCalls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
      return { ...message, content, stop_reason: stopReason, usage: usage(result.generated) };
    },
    closedBody: anthropicErrorBody({ status: 503, type: 'api_error', message: 'simulator closed' }),
  });
}
