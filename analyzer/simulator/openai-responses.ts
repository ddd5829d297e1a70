/** POST /v1/responses: the OpenAI Responses wire protocol (JSON and SSE with `event:` lines). */
import { runExchange } from './exchange.js';
import { ClientConnection } from './http-io.js';
import { claimedModel, contentText, invalidRequest as invalid, readOpenAIBody, refuse, SIMULATOR_CLOSED } from './openai-common.js';
import type { OpenAIError } from './openai-common.js';
import { DirectiveError, inputTokensFor, planResponse } from './script.js';
import type { Piece, ResponsePlan } from './script.js';
import { isRecord } from './route-context.js';
import type { RouteContext } from './route-context.js';

type Item = Record<string, unknown>;

/** The real API refuses a smaller max_output_tokens. */
const MIN_MAX_OUTPUT_TOKENS = 16;
/** Stored responses kept for previous_response_id and item_reference (oldest forgotten first). */
const MAX_STORED_RESPONSES = 1000;

/**
 * What `store: true` (the default) keeps: each response's whole conversation
 * (for previous_response_id) and its output items by id (for item_reference).
 */
export class ResponseStore {
  private readonly responses = new Map<string, { conversation: Item[]; outputIds: string[] }>();
  private readonly items = new Map<string, Item>();

  conversation(responseId: string): Item[] | undefined {
    return this.responses.get(responseId)?.conversation;
  }

  item(id: string): Item | undefined {
    return this.items.get(id);
  }

  save(responseId: string, conversation: readonly Item[], output: readonly Item[]): void {
    const outputIds: string[] = [];
    for (const item of output) {
      if (typeof item.id !== 'string') continue;
      this.items.set(item.id, item);
      outputIds.push(item.id);
    }
    this.responses.set(responseId, { conversation: [...conversation, ...output], outputIds });
    for (const [oldest, { outputIds: ids }] of this.responses) {
      if (this.responses.size <= MAX_STORED_RESPONSES) break;
      this.responses.delete(oldest);
      for (const itemId of ids) this.items.delete(itemId);
    }
  }
}

interface ResponsesRequest {
  model: string;
  stream: boolean;
  store: boolean;
  maxTokens: number | undefined;
  instructions: string | null;
  /** Previous response's conversation (previous_response_id) followed by this input, references resolved. */
  conversation: Item[];
  /** Request settings the response object repeats. */
  echo: Record<string, unknown>;
}

function isMessage(item: Item): boolean {
  return item.type === 'message' || (item.type === undefined && item.role !== undefined);
}

/** Items the model produced: assistant messages, reasoning and tool calls (function_call, web_search_call, ...). */
function isModelItem(item: Item): boolean {
  if (isMessage(item)) return item.role === 'assistant';
  return typeof item.type === 'string' && (item.type === 'reasoning' || item.type.endsWith('_call'));
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const ROLES = ['user', 'assistant', 'system', 'developer'];

const missing = (param: string): OpenAIError => invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');

/** Checks one input item; gives it back with an item_reference resolved, or the error. */
function inputItem(raw: unknown, i: number, store: ResponseStore): { item: Item } | { error: OpenAIError } {
  const at = `input[${i}]`;
  if (!isRecord(raw)) return { error: invalid(`Invalid type for '${at}': expected an input item, but got ${typeName(raw)} instead.`, at, 'invalid_type') };
  if (raw.type === 'item_reference') {
    const found = typeof raw.id === 'string' ? store.item(raw.id) : undefined;
    return found ? { item: found } : { error: invalid(`Item with id '${String(raw.id)}' not found.`, 'input') };
  }
  if (isMessage(raw) || raw.type === undefined) {
    if (raw.role === undefined) return { error: missing(`${at}.role`) };
    if (typeof raw.role !== 'string' || !ROLES.includes(raw.role)) {
      const message = `Invalid value: '${String(raw.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`;
      return { error: invalid(message, `${at}.role`, 'invalid_value') };
    }
    if (raw.content === undefined) return { error: missing(`${at}.content`) };
  }
  if (raw.type === 'function_call' || raw.type === 'function_call_output') {
    const required = raw.type === 'function_call' ? ['call_id', 'name', 'arguments'] : ['call_id', 'output'];
    const absent = required.find((key) => raw[key] === undefined);
    if (absent !== undefined) return { error: missing(`${at}.${absent}`) };
  }
  return { item: raw };
}

/** Every function_call_output answers an earlier function_call, and every function_call is answered. */
function checkToolPairs(items: readonly Item[]): OpenAIError | undefined {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const item of items) {
    if (item.type === 'function_call') called.add(String(item.call_id));
    if (item.type !== 'function_call_output') continue;
    const callId = String(item.call_id);
    if (!called.has(callId)) return invalid(`No tool call found for function call output with call_id ${callId}.`, 'input');
    answered.add(callId);
  }
  const unanswered = [...called].find((id) => !answered.has(id));
  return unanswered === undefined ? undefined : invalid(`No tool output found for function call ${unanswered}.`, 'input');
}

/** Validates like the real API; returns the parsed request or the error to answer. */
export function validateResponsesRequest(body: unknown, store: ResponseStore): ResponsesRequest | OpenAIError {
  if (!isRecord(body)) return invalid('The request body must be a JSON object.', null);
  if (typeof body.model !== 'string' || body.model === '') {
    return missing('model');
  }
  let input: unknown[];
  if (typeof body.input === 'string') input = [{ type: 'message', role: 'user', content: body.input }];
  else if (Array.isArray(body.input)) input = body.input;
  else if (body.input === undefined || body.input === null) input = [];
  else {
    return invalid(`Invalid type for 'input': expected one of a string or an array of input items, but got ${typeName(body.input)} instead.`, 'input', 'invalid_type');
  }
  let maxTokens: number | undefined;
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) {
    const v = body.max_output_tokens;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      return invalid(`Invalid type for 'max_output_tokens': expected an integer, but got ${typeName(v)} instead.`, 'max_output_tokens', 'invalid_type');
    }
    if (v < MIN_MAX_OUTPUT_TOKENS) {
      return invalid(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_MAX_OUTPUT_TOKENS}, but got ${v} instead.`, 'max_output_tokens', 'integer_below_min_value');
    }
    maxTokens = v;
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) {
    return invalid(`Invalid type for 'tools': expected an array, but got ${typeName(body.tools)} instead.`, 'tools', 'invalid_type');
  }
  const tools: unknown[] = body.tools ?? [];
  for (const [i, tool] of tools.entries()) {
    if (isRecord(tool) && tool.type === 'function' && typeof tool.name !== 'string') {
      return missing(`tools[${i}].name`);
    }
  }
  const previousId = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
  const previous = previousId === null ? [] : store.conversation(previousId);
  if (!previous) {
    return invalid(`Previous response with id '${previousId}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
  const conversation = [...previous];
  for (const [i, raw] of input.entries()) {
    const checked = inputItem(raw, i, store);
    if ('error' in checked) return checked.error;
    conversation.push(checked.item);
  }
  if (conversation.length === 0) return missing('input');
  const pairing = checkToolPairs(conversation);
  if (pairing) return pairing;
  const instructions = typeof body.instructions === 'string' ? body.instructions : null;
  const storeIt = body.store !== false;
  return {
    model: body.model,
    stream: body.stream === true,
    store: storeIt,
    maxTokens,
    instructions,
    conversation,
    echo: {
      parallel_tool_calls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : true,
      previous_response_id: previousId,
      temperature: typeof body.temperature === 'number' ? body.temperature : 1,
      tool_choice: body.tool_choice ?? 'auto',
      tools,
      top_p: typeof body.top_p === 'number' ? body.top_p : 1,
      metadata: isRecord(body.metadata) ? body.metadata : {},
    },
  };
}

/** Characters of the instructions and of every item's text, tool call names, arguments and outputs. */
function inputChars(instructions: string | null, items: readonly Item[]): number {
  let chars = instructions?.length ?? 0;
  for (const item of items) {
    if (isMessage(item)) chars += contentText(item.content).length;
    else if (item.type === 'function_call') chars += String(item.name).length + String(item.arguments).length;
    else if (item.type === 'function_call_output') chars += contentText(item.output).length;
  }
  return chars;
}

/**
 * The directives come from the last user message; each run of model items after it
 * (a message and/or function calls, then their outputs) is one tool round.
 */
function scriptInput(items: readonly Item[]): { directiveText: string; toolRounds: number } {
  let lastUser = items.length - 1;
  while (lastUser >= 0 && !(isMessage(items[lastUser]!) && items[lastUser]!.role === 'user')) lastUser--;
  if (lastUser === -1) return { directiveText: '', toolRounds: 0 };
  let toolRounds = 0;
  let inRun = false;
  for (const item of items.slice(lastUser + 1)) {
    const modelItem = isModelItem(item);
    if (modelItem && !inRun) toolRounds++;
    inRun = modelItem;
  }
  return { directiveText: contentText(items[lastUser]!.content), toolRounds };
}

export async function handleOpenAIResponses(ctx: RouteContext, store: ResponseStore): Promise<void> {
  const id = ctx.ids.next('resp_');
  const body = await readOpenAIBody(ctx, 'openai-responses', id);
  if (!body) return;
  const request = validateResponsesRequest(body.value, store);
  if (!('conversation' in request)) {
    const { model, stream } = claimedModel(body.value);
    return refuse(ctx, 'openai-responses', id, request, model, stream);
  }

  let plan: ResponsePlan;
  try {
    plan = planResponse({ ...scriptInput(request.conversation), maxTokens: request.maxTokens }, ctx.timing, () => ctx.ids.next('call_'));
  } catch (err) {
    if (!(err instanceof DirectiveError)) throw err;
    return refuse(ctx, 'openai-responses', id, invalid(`simulator: ${err.message}`, 'input'), request.model, request.stream);
  }

  const conn = new ClientConnection(ctx.res);
  const createdAt = Math.floor(Date.now() / 1000);
  const inputTokens = inputTokensFor(inputChars(request.instructions, request.conversation));
  const out = new OutputItems(plan, plan.kind === 'text' ? [ctx.ids.next('msg_')] : plan.toolCalls.map(() => ctx.ids.next('fc_')));
  const status = plan.truncated ? 'incomplete' : 'completed';
  const { echo } = request;
  // The response object, its keys in the API's order.
  const response = (s: string, output: Item[], usage: Record<string, unknown> | null): Item => ({
    id,
    object: 'response',
    created_at: createdAt,
    status: s,
    background: false,
    completed_at: s === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: null,
    incomplete_details: s === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions,
    max_output_tokens: request.maxTokens ?? null,
    max_tool_calls: null,
    model: request.model,
    output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: request.store,
    temperature: echo.temperature,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: echo.metadata,
  });
  const finished = (generated: number): Item => {
    const output = out.all(status);
    if (request.store) store.save(id, request.conversation, output);
    return response(status, output, usageOf(inputTokens, generated));
  };

  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): void => {
    conn.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  };
  const closeItem = (index: number): void => {
    const item = out.item(index, status);
    const ids = { item_id: item.id, output_index: index };
    if (item.type === 'function_call') {
      // As the live API sends it: without the `name` its schema once documented.
      event('response.function_call_arguments.done', { ...ids, arguments: item.arguments });
    } else {
      const part = out.textPart();
      event('response.output_text.done', { ...ids, content_index: 0, text: part.text, logprobs: [] });
      event('response.content_part.done', { ...ids, content_index: 0, part });
    }
    event('response.output_item.done', { output_index: index, item });
  };
  const openItem = (index: number): void => {
    const item = out.started(index);
    event('response.output_item.added', { output_index: index, item });
    if (item.type === 'message') {
      event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: out.textPart('') });
    }
  };

  await runExchange({
    ctx,
    conn,
    api: 'openai-responses',
    id,
    model: request.model,
    stream: request.stream,
    plan,
    inputTokens,
    headers: { 'x-request-id': id },
    writeStart: () => {
      event('response.created', { response: response('in_progress', [], null) });
      event('response.in_progress', { response: response('in_progress', [], null) });
    },
    writeToken: (piece: Piece, index: number) => {
      if (piece.kind === 'tool-start') {
        if (piece.call > 0) closeItem(piece.call - 1);
        openItem(piece.call);
        return;
      }
      if (index === 0) openItem(0);
      const ids = { item_id: out.ids[piece.kind === 'text' ? 0 : piece.call], output_index: piece.kind === 'text' ? 0 : piece.call };
      if (piece.kind === 'text') event('response.output_text.delta', { ...ids, content_index: 0, delta: piece.text, logprobs: [] });
      else event('response.function_call_arguments.delta', { ...ids, delta: piece.fragment });
    },
    writeEnd: (result) => {
      if (plan.pieces.length === 0) openItem(0); // an empty answer is still one (empty) message
      closeItem(out.ids.length - 1);
      event(`response.${status}`, { response: finished(result.generated) });
    },
    body: (result) => finished(result.generated),
    closedBody: SIMULATOR_CLOSED,
  });
}

/** The output items of a plan: one message for text, one function_call item per tool call. */
class OutputItems {
  constructor(
    private readonly plan: ResponsePlan,
    readonly ids: readonly string[],
  ) {}

  textPart(text = this.plan.text): Item {
    return { type: 'output_text', annotations: [], logprobs: [], text };
  }

  /** The item as announced by response.output_item.added. */
  started(index: number): Item {
    if (this.plan.kind === 'text') return { id: this.ids[0], type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    const call = this.plan.toolCalls[index]!;
    return { id: this.ids[index], type: 'function_call', status: 'in_progress', arguments: '', call_id: call.id, name: call.name };
  }

  /** The finished item (`status`: completed, or incomplete when the text was cut by max_output_tokens). */
  item(index: number, status: string): Item {
    if (this.plan.kind === 'text') {
      return { id: this.ids[0], type: 'message', status, content: [this.textPart()], role: 'assistant' };
    }
    const call = this.plan.toolCalls[index]!;
    return { id: this.ids[index], type: 'function_call', status: 'completed', arguments: call.argumentsJson, call_id: call.id, name: call.name };
  }

  all(status: string): Item[] {
    return this.ids.map((_, i) => this.item(i, status));
  }
}

function usageOf(input: number, output: number): Record<string, unknown> {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}
