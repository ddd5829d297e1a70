/**
 * Every HTTP route of the simulator: how it is called, what it does, and its handler. The server
 * dispatches through this list only: it is the simulator's interface (`afterstop simulator --help`
 * and docs/simulator.md render it).
 */
import { handleAnthropicMessages } from './anthropic-messages.js';
import type { EffectService } from './effects.js';
import { sendJson } from './http-io.js';
import { handleOpenAIChat } from './openai-chat.js';
import { handleOpenAIResponses } from './openai-responses.js';
import type { ResponseStore } from './openai-responses.js';
import type { RouteContext } from './route-context.js';

/** What lives as long as the server: the effect service's keys, the Responses API's stored responses. */
export interface RouteServices {
  effects: EffectService;
  responses: ResponseStore;
}

export interface RouteSpec {
  method: 'GET' | 'POST';
  /** The path; a `:name` segment matches any one segment (decoded, handed to the handler). */
  path: string;
  /** Other paths served the same way (the SDKs' base URLs with or without `/v1`). */
  aliases: readonly string[];
  /** What it does, in one line. */
  summary: string;
  /** A call with curl, against a simulator at $SIM (e.g. http://127.0.0.1:4010). */
  example: string;
  handle(ctx: RouteContext, services: RouteServices, params: Readonly<Record<string, string>>): Promise<void> | void;
}

const chat = JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi [[tokens:5]]' }] });
const responses = JSON.stringify({ model: 'gpt-4o', input: 'Hi [[tokens:3]]' });
const messages = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi [[tokens:5]]' }] });

export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    aliases: ['/chat/completions'],
    summary: 'OpenAI Chat Completions: JSON or SSE (stream: true; stream_options.include_usage), tools, max_tokens; validated like the real API (an unanswered tool call is a 400)',
    example: `curl -sN $SIM/v1/chat/completions -H 'content-type: application/json' -d '${chat}'`,
    handle: (ctx) => handleOpenAIChat(ctx),
  },
  {
    method: 'POST',
    path: '/v1/responses',
    aliases: ['/responses'],
    summary: 'OpenAI Responses: JSON or SSE with event: lines, function calls, previous_response_id and item_reference over stored responses (store: true, the default)',
    example: `curl -s $SIM/v1/responses -H 'content-type: application/json' -d '${responses}'`,
    handle: (ctx, services) => handleOpenAIResponses(ctx, services.responses),
  },
  {
    method: 'POST',
    path: '/v1/messages',
    aliases: ['/messages'],
    summary: 'Anthropic Messages: JSON or SSE, tool_use / tool_result blocks, max_tokens required; validated like the real API',
    example: `curl -sN $SIM/v1/messages -H 'content-type: application/json' -d '${messages}'`,
    handle: (ctx) => handleAnthropicMessages(ctx),
  },
  {
    method: 'POST',
    path: '/effects/:name',
    aliases: [],
    summary: 'a side effect named NAME (payment, e-mail, deploy...): waits, then commits even if the client has gone; the query and Idempotency-Key below shape it',
    example: `curl -s -X POST "$SIM/effects/send_email?delayMs=500" -H 'idempotency-key: order-42' -d '{"to":"bob@example.com"}'`,
    handle: (ctx, services, params) => services.effects.handle(ctx, params.name!),
  },
  {
    method: 'GET',
    path: '/ledger',
    aliases: [],
    summary: 'the ground truth so far: every model request (tokens generated, sent, when) and every effect (committed when, or not)',
    example: 'curl -s $SIM/ledger',
    handle: (ctx) => sendJson(ctx.res, 200, ctx.ledger.toJSON()),
  },
  {
    method: 'GET',
    path: '/health',
    aliases: [],
    summary: 'answers {"ok":true} while the simulator serves',
    example: 'curl -s $SIM/health',
    handle: (ctx) => sendJson(ctx.res, 200, { ok: true }),
  },
];

/** The route serving `method` and `path` (trailing slashes removed), with its path parameters; undefined: 404. */
export function findRoute(method: string, path: string): { route: RouteSpec; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    for (const pattern of [route.path, ...route.aliases]) {
      const params = matchPath(pattern, path);
      if (params) return { route, params };
    }
  }
  return undefined;
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (g === '') return undefined;
      params[w.slice(1)] = decodeURIComponent(g);
    } else if (w !== g) return undefined;
  }
  return params;
}
