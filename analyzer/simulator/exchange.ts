/**
 * One model request from its plan to its ledger record, for every model API:
 * the paced generation, streamed or answered at once, and the ground truth.
 * The API modules only say how tokens and answers look on their wire.
 */
import { nowNs } from './clock.js';
import { generate, startedToolCalls } from './generation.js';
import type { GenerationResult } from './generation.js';
import { sendJson, startEventStream } from './http-io.js';
import type { ClientConnection } from './http-io.js';
import type { ModelApi } from './ledger.js';
import type { RouteContext } from './route-context.js';
import type { Piece, ResponsePlan } from './script.js';

export interface Exchange {
  ctx: RouteContext;
  conn: ClientConnection;
  api: ModelApi;
  id: string;
  model: string;
  stream: boolean;
  plan: ResponsePlan;
  inputTokens: number;
  /** The tool call ids whose results the request carried, where the API module reads them (ledger.ts). */
  toolResultIds?: string[];
  headers: Record<string, string>;
  /** Streaming: the events sent as soon as the stream opens (before the first token). */
  writeStart?(): void;
  /** Streaming: writes the events of one token (only called while the client is connected). */
  writeToken(piece: Piece, index: number): void;
  /** Streaming: writes the closing events, once every token went out and the client is still there. */
  writeEnd(result: GenerationResult): void;
  /** Not streaming: the JSON body of the answer, once every token was generated and the client is still there. */
  body(result: GenerationResult): unknown;
  /** Not streaming: the 503 body answered when the simulator closes mid-generation. */
  closedBody: unknown;
}

export async function runExchange(x: Exchange): Promise<void> {
  const { ctx, conn, plan, stream } = x;
  const { res } = ctx;
  let result: GenerationResult;
  let sent = 0;
  const sentNs: bigint[] = [];

  if (stream) {
    startEventStream(res, x.headers);
    x.writeStart?.();
    result = await generate(plan.pieces, plan, conn, ctx.shutdown, (piece, index) => {
      x.writeToken(piece, index);
      sentNs.push(nowNs());
    });
    sent = result.emitted;
    if (result.stoppedByShutdown) res.destroy();
    else if (!conn.closed) {
      x.writeEnd(result);
      res.end();
    }
  } else {
    result = await generate(plan.pieces, plan, conn, ctx.shutdown);
    if (result.stoppedByShutdown) sendJson(res, 503, x.closedBody, x.headers);
    else if (!conn.closed) {
      sendJson(res, 200, x.body(result), x.headers);
      sent = result.generated;
    }
  }

  ctx.ledger.addModelRequest({
    id: x.id,
    api: x.api,
    model: x.model,
    stream,
    startNs: ctx.startNs,
    endNs: nowNs(),
    inputTokens: x.inputTokens,
    outputTokensGenerated: result.generated,
    outputTokensSent: sent,
    outputTokensSentNs: stream ? sentNs.slice(0, sent) : [],
    // on shutdown the simulator itself cut the connection: only a close before that counts
    clientClosedEarly: result.stoppedByShutdown ? result.clientClosedEarly : conn.closed,
    toolCalls: startedToolCalls(plan.pieces, result.generated, plan.toolCalls),
    ...(x.toolResultIds !== undefined ? { toolResultIds: x.toolResultIds } : {}),
    status: result.stoppedByShutdown && !stream ? 503 : 200,
    ...(result.stoppedByShutdown ? { error: 'simulator closed' } : {}),
  });
}
