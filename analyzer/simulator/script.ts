/**
 * How the fake model decides what to answer. Deterministic, driven by the
 * directives (DIRECTIVES below) in the text of the last user message.
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

/** One directive of the script language: how it is written, what it does, and how it is read. */
export interface DirectiveSpec {
  /** The word after `[[` (case-sensitive). */
  keyword: string;
  /** How it is written. */
  syntax: string;
  /** What it does, in one line. */
  summary: string;
  /** A user message using it. */
  example: string;
  /** Reads the directive starting at `text[at]` (its `[[`) into `result`; returns the index after its `]]`. */
  read(text: string, at: number, result: Directives): number;
}

function numeric(keyword: string, set: (result: Directives, value: number, raw: string) => void): (text: string, at: number, result: Directives) => number {
  const pattern = new RegExp(`^\\[\\[${keyword}:\\s*(\\d+(?:\\.\\d+)?)\\s*\\]\\]`);
  return (text, at, result) => {
    const m = pattern.exec(text.slice(at));
    if (!m) throw new DirectiveError(`malformed directive at: ${text.slice(at, at + 40)}`);
    set(result, Number(m[1]), m[1]!);
    return at + m[0].length;
  };
}

/**
 * The script language: every directive the simulator reads in the last user message. The parser knows
 * no other: this list is the language (`afterstop simulator --help` and docs/simulator.md render it).
 */
export const DIRECTIVES: readonly DirectiveSpec[] = [
  {
    keyword: 'tool',
    syntax: '[[tool:NAME {json args}]]',
    summary: 'answer with a call of tool NAME (arguments: a JSON object, default {}); several in a row: parallel calls',
    example: 'Refund order 42. [[tool:refund {"order":42}]]',
    read: (text, at, result) => {
      if (!text.startsWith('[[tool:', at)) throw new DirectiveError(`malformed directive at: ${text.slice(at, at + 40)}`);
      const { directive, end } = parseTool(text, at + '[[tool:'.length);
      result.steps[result.steps.length - 1]!.push(directive);
      return end;
    },
  },
  {
    keyword: 'step',
    syntax: '[[step]]',
    summary: 'separates tool rounds: tools after the k-th [[step]] answer the k-th tool-result round (without it, a tool result gets a text answer)',
    example: 'Look it up, then mail it. [[tool:lookup {"id":7}]] [[step]] [[tool:send_email {"to":"bob@example.com"}]]',
    read: (text, at, result) => {
      if (!text.startsWith('[[step]]', at)) throw new DirectiveError(`malformed directive at: ${text.slice(at, at + 40)}`);
      result.steps.push([]);
      return at + '[[step]]'.length;
    },
  },
  {
    keyword: 'tokens',
    syntax: '[[tokens:N]]',
    summary: `a text answer of N output tokens, "tok1 " "tok2 " ... (default ${DEFAULT_TOKENS}; cut by the request's max tokens)`,
    example: 'Write a long answer. [[tokens:200]]',
    read: numeric('tokens', (result, value, raw) => {
      if (!Number.isInteger(value)) throw new DirectiveError(`[[tokens:N]] needs an integer, got ${raw}`);
      result.tokens = value;
    }),
  },
  {
    keyword: 'delay',
    syntax: '[[delay:MS]]',
    summary: `milliseconds between streamed tokens, for this request (default: --token-delay, else ${DEFAULT_TOKEN_DELAY_MS})`,
    example: 'Answer slowly. [[tokens:50]] [[delay:100]]',
    read: numeric('delay', (result, value) => {
      result.delayMs = value;
    }),
  },
  {
    keyword: 'ttft',
    syntax: '[[ttft:MS]]',
    summary: 'milliseconds before the first token, for this request (default: --first-token-delay, else the token delay)',
    example: 'Think first. [[ttft:2000]] [[tokens:5]]',
    read: numeric('ttft', (result, value) => {
      result.ttftMs = value;
    }),
  },
];

/** Parses the directives in a user message text. Throws DirectiveError on a malformed directive. */
export function parseDirectives(text: string): Directives {
  const result: Directives = { steps: [[]] };
  let i = 0;
  while ((i = text.indexOf('[[', i)) !== -1) {
    const word = /^\[\[(\w+)/.exec(text.slice(i, i + 64))?.[1];
    const directive = DIRECTIVES.find((d) => d.keyword === word);
    if (directive) i = directive.read(text, i, result);
    else i += 2; // ordinary text
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
