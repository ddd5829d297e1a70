/** What the OpenAI endpoints (Chat Completions, Responses) share: the error shape, body reading, refusals. */
import { nowNs } from './clock.js';
import { readJsonBody, sendJson } from './http-io.js';
import { rejectedRequest } from './ledger.js';
import type { ModelApi } from './ledger.js';
import { isRecord } from './route-context.js';
import type { RouteContext } from './route-context.js';

export interface OpenAIError {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export function openAIErrorBody(e: OpenAIError): { error: Omit<OpenAIError, 'status'> } {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
}

export function invalidRequest(message: string, param: string | null, code: string | null = null): OpenAIError {
  return { status: 400, message, type: 'invalid_request_error', param, code };
}

/** The body answered when the simulator closes during a non-streamed request. */
export const SIMULATOR_CLOSED = openAIErrorBody({ status: 503, message: 'simulator closed', type: 'server_error', param: null, code: null });

/** Text carried by an OpenAI content value (a string, or an array of parts with `text`). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** Answers an OpenAI error and records the refused request (nothing billed). */
export function refuse(ctx: RouteContext, api: ModelApi, id: string, e: OpenAIError, model: string, stream: boolean): void {
  sendJson(ctx.res, e.status, openAIErrorBody(e), { 'x-request-id': id });
  ctx.ledger.addModelRequest(rejectedRequest(api, { id, model, stream, startNs: ctx.startNs, endNs: nowNs() }, e.status, e.message));
}

/**
 * Reads the JSON request body. On failure it answers and records the refusal
 * (or, if the client left before sending its request, does nothing) and returns undefined.
 */
export async function readOpenAIBody(ctx: RouteContext, api: ModelApi, id: string): Promise<{ value: unknown } | undefined> {
  const body = await readJsonBody(ctx.req, ctx.shutdown);
  if (body.ok) return { value: body.value };
  if (body.status === 499) return undefined; // client left before sending its request: nothing to answer or bill
  const message = body.status === 400 ? `We could not parse the JSON body of your request. (${body.message}) The OpenAI API expects a JSON payload.` : body.message;
  refuse(ctx, api, id, { ...invalidRequest(message, null), status: body.status }, 'unknown', false);
  return undefined;
}

/** The model and stream flag of a body that failed validation, for its ledger record. */
export function claimedModel(body: unknown): { model: string; stream: boolean } {
  const raw = isRecord(body) ? body : {};
  return { model: typeof raw.model === 'string' ? raw.model : 'unknown', stream: raw.stream === true };
}
