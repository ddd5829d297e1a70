/** The token loop shared by every model API: paced, billed, and stopped by client disconnects. */
import type { ClientConnection } from './http-io.js';
import { sleep } from './http-io.js';
import type { Piece } from './script.js';

export interface GenerationTiming {
  firstTokenDelayMs: number;
  tokenDelayMs: number;
}

export interface GenerationResult {
  /** Tokens the generator produced (= billed output tokens). */
  generated: number;
  /** Tokens handed to the still-connected client by `emit`. */
  emitted: number;
  clientClosedEarly: boolean;
  /** The simulator was closed mid-generation. */
  stoppedByShutdown: boolean;
}

/**
 * Produces `pieces` one token at a time: waits the time-to-first-token, then the
 * per-token delay before each further token. A client disconnect does not
 * interrupt the token being produced (it is generated and billed) but stops the
 * loop right after it. Server shutdown interrupts immediately.
 * `emit` (streaming only) is called for every token while the client is connected.
 */
export async function generate(pieces: readonly Piece[], timing: GenerationTiming, conn: ClientConnection, shutdown: AbortSignal, emit?: (piece: Piece, index: number) => void): Promise<GenerationResult> {
  let generated = 0;
  let emitted = 0;
  if (pieces.length === 0) {
    // Even an empty answer takes the time to first token.
    const ok = await sleep(timing.firstTokenDelayMs, shutdown);
    return { generated, emitted, clientClosedEarly: conn.closed, stoppedByShutdown: !ok };
  }
  for (let i = 0; i < pieces.length; i++) {
    if (conn.closed) break;
    const ok = await sleep(i === 0 ? timing.firstTokenDelayMs : timing.tokenDelayMs, shutdown);
    if (!ok) return { generated, emitted, clientClosedEarly: conn.closed, stoppedByShutdown: true };
    generated++;
    if (conn.closed) break; // the client left while this token was being produced
    if (emit) {
      emit(pieces[i]!, i);
      emitted++;
    }
  }
  return { generated, emitted, clientClosedEarly: conn.closed, stoppedByShutdown: false };
}

/** Tool calls whose first token was generated among the first `generated` pieces. */
export function startedToolCalls(pieces: readonly Piece[], generated: number, calls: readonly { id: string; name: string }[]): { id: string; name: string }[] {
  const started: { id: string; name: string }[] = [];
  for (const p of pieces.slice(0, generated)) {
    const call = p.kind === 'tool-start' ? calls[p.call] : undefined;
    if (call) started.push({ id: call.id, name: call.name });
  }
  return started;
}
