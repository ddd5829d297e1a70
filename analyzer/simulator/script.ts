/**
 * How the fake model decides what to answer. Deterministic, driven by directives
 * in the text of the last user message:
 *
 *   [[tool:NAME {json args}]]  answer with this tool call (several allowed) when the
 *                              last message is the user's turn
 *   [[step]]                   separates tool rounds: tools before the first [[step]]
 *                              answer the user turn, tools after the k-th [[step]]
 *                              answer the k-th tool-result round
 *   [[tokens:N]]               text answers have N tokens (default 20): "tok1 " "tok2 " ...
 *   [[delay:MS]]               per-token delay for this request
 *   [[ttft:MS]]                time-to-first-token for this request
 *
 * Without [[step]], a request whose last message is a tool result gets a text answer.
 */

export const DEFAULT_TOKENS = 20;
export const DEFAULT_TOKEN_DELAY_MS = 25;
/** Characters of tool-call arguments JSON per streamed fragment (one output token each). */
export const ARG_FRAGMENT_CHARS = 4;

export class DirectiveError extends Error {
  override name = 'DirectiveError';
}

export interface ToolDirective {
  name: string;
  /** Arguments exactly as written (a JSON object). */
  argumentsJson: string;
  input: Record<string, unknown>;
}

export interface Directives {
  /** steps[k] = tool calls answering tool-result round k (step 0 answers the user turn). */
  steps: ToolDirective[][];
  tokens?: number;
  delayMs?: number;
  ttftMs?: number;
}

const NUMERIC = /^\[\[(tokens|delay|ttft):\s*(\d+(?:\.\d+)?)\s*\]\]/;

/** Parses the directives in a user message text. Throws DirectiveError on a malformed directive. */
export function parseDirectives(text: string): Directives {
  const result: Directives = { steps: [[]] };
  let i = 0;
  while ((i = text.indexOf('[[', i)) !== -1) {
    const rest = text.slice(i);
    if (rest.startsWith('[[tool:')) {
      const { directive, end } = parseTool(text, i + '[[tool:'.length);
      result.steps[result.steps.length - 1]!.push(directive);
      i = end;
      continue;
    }
    if (rest.startsWith('[[step]]')) {
      result.steps.push([]);
      i += '[[step]]'.length;
      continue;
    }
    const m = NUMERIC.exec(rest);
    if (m) {
      const value = Number(m[2]);
      if (m[1] === 'tokens') {
        if (!Number.isInteger(value)) throw new DirectiveError(`[[tokens:N]] needs an integer, got ${m[2]}`);
        result.tokens = value;
      } else if (m[1] === 'delay') result.delayMs = value;
      else result.ttftMs = value;
      i += m[0].length;
      continue;
    }
    if (/^\[\[(tokens|delay|ttft|tool|step)\b/.test(rest)) {
      throw new DirectiveError(`malformed directive at: ${rest.slice(0, 40)}`);
    }
    i += 2; // ordinary text
  }
  return result;
}

function parseTool(text: string, start: number): { directive: ToolDirective; end: number } {
  const nameMatch = /^[A-Za-z0-9_.-]+?(?=\s|\{|\]\])/.exec(text.slice(start));
  if (!nameMatch) throw new DirectiveError(`malformed [[tool:...]] directive at: ${text.slice(start - 7, start + 40)}`);
  const name = nameMatch[0];
  let i = start + name.length;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  let argumentsJson = '{}';
  if (text[i] === '{') {
    const close = matchingBrace(text, i);
    if (close === -1) throw new DirectiveError(`unterminated arguments in [[tool:${name} ...]]`);
    argumentsJson = text.slice(i, close + 1);
    i = close + 1;
    while (i < text.length && /\s/.test(text[i]!)) i++;
  }
  if (!text.startsWith(']]', i)) throw new DirectiveError(`[[tool:${name} ...]] must end with ]]`);
  let input: unknown;
  try {
    input = JSON.parse(argumentsJson);
  } catch {
    throw new DirectiveError(`arguments of [[tool:${name} ...]] are not valid JSON: ${argumentsJson}`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new DirectiveError(`arguments of [[tool:${name} ...]] must be a JSON object`);
  }
  return { directive: { name, argumentsJson, input: input as Record<string, unknown> }, end: i + 2 };
}

/** Index of the brace closing the one at `open`, honouring JSON strings; -1 if none. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Deterministic input token count: ceil(characters of all message text / 4). */
export function inputTokensFor(chars: number): number {
  return Math.ceil(chars / 4);
}

/** One streamed chunk = one output token. */
export type Piece = { kind: 'text'; text: string } | { kind: 'tool-start'; call: number } | { kind: 'tool-args'; call: number; fragment: string };

export interface PlannedToolCall {
  id: string;
  name: string;
  argumentsJson: string;
  input: Record<string, unknown>;
}

export interface ResponsePlan {
  kind: 'text' | 'tool_calls';
  pieces: Piece[];
  text: string;
  toolCalls: PlannedToolCall[];
  /** Text was cut by the request's max tokens. */
  truncated: boolean;
  tokenDelayMs: number;
  firstTokenDelayMs: number;
}

export interface PlanInput {
  /** Text of the last user-authored message ('' if none). */
  directiveText: string;
  /** Number of assistant turns since that user message (0 = the user's turn). */
  toolRounds: number;
  maxTokens?: number;
}

export interface TimingDefaults {
  tokenDelayMs?: number;
  firstTokenDelayMs?: number;
}

export function planResponse(input: PlanInput, defaults: TimingDefaults, nextToolId: () => string): ResponsePlan {
  const d = parseDirectives(input.directiveText);
  const tokenDelayMs = d.delayMs ?? defaults.tokenDelayMs ?? DEFAULT_TOKEN_DELAY_MS;
  const firstTokenDelayMs = d.ttftMs ?? defaults.firstTokenDelayMs ?? tokenDelayMs;
  const tools = d.steps[input.toolRounds] ?? [];
  if (tools.length > 0) {
    const toolCalls = tools.map((t) => ({ ...t, id: nextToolId() }));
    const pieces: Piece[] = [];
    toolCalls.forEach((call, index) => {
      pieces.push({ kind: 'tool-start', call: index });
      for (let i = 0; i < call.argumentsJson.length; i += ARG_FRAGMENT_CHARS) {
        pieces.push({ kind: 'tool-args', call: index, fragment: call.argumentsJson.slice(i, i + ARG_FRAGMENT_CHARS) });
      }
    });
    return { kind: 'tool_calls', pieces, text: '', toolCalls, truncated: false, tokenDelayMs, firstTokenDelayMs };
  }
  const wanted = d.tokens ?? DEFAULT_TOKENS;
  const count = input.maxTokens !== undefined ? Math.min(wanted, input.maxTokens) : wanted;
  const pieces: Piece[] = [];
  for (let n = 1; n <= count; n++) pieces.push({ kind: 'text', text: `tok${n} ` });
  return {
    kind: 'text',
    pieces,
    text: textOf(pieces),
    toolCalls: [],
    truncated: count < wanted,
    tokenDelayMs,
    firstTokenDelayMs,
  };
}

/** Text emitted by the first `generated` pieces (for partial non-stream answers). */
export function textOf(pieces: readonly Piece[]): string {
  return pieces.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}
