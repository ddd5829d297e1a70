/** Ground truth recorded by the simulator: what the fake provider generated and which side effects happened. */

export type ModelApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages';

export interface ToolCallRef {
  id: string;
  name: string;
}

/**
 * One request to a model endpoint. Billed output tokens = outputTokensGenerated:
 * the provider bills what it generated, even when the client closed early.
 * On an error response (status >= 400) nothing is billed: inputTokens = 0.
 */
export interface ModelRequestRecord {
  id: string;
  api: ModelApi;
  model: string;
  stream: boolean;
  startNs: bigint;
  endNs: bigint;
  inputTokens: number;
  outputTokensGenerated: number;
  outputTokensSent: number;
  /** When each streamed output token was written to the client (empty when not streamed). */
  outputTokensSentNs: bigint[];
  clientClosedEarly: boolean;
  /** Tool calls whose generation started (a call cut short by a disconnect is included). */
  toolCalls: ToolCallRef[];
  /**
   * The tool call ids whose results (or errors) the request's history carried to the model, in order
   * (Chat Completions: its `tool` messages). Absent where the simulator does not read them (the
   * Responses and Messages APIs, a refused request): not known, rather than none.
   */
  toolResultIds?: string[];
  status: number;
  error?: string;
}

/** The ground truth of a request refused before any token was generated: nothing billed. */
export function rejectedRequest(api: ModelApi, request: { id: string; model: string; stream: boolean; startNs: bigint; endNs: bigint }, status: number, error: string): ModelRequestRecord {
  return {
    ...request,
    api,
    inputTokens: 0,
    outputTokensGenerated: 0,
    outputTokensSent: 0,
    outputTokensSentNs: [],
    clientClosedEarly: false,
    toolCalls: [],
    status,
    error,
  };
}

/** `conflict`: answered 409 at once, another request with its Idempotency-Key still in progress (the `conflictInProgress` mode): nothing done. */
export type EffectOutcome = 'committed' | 'deduplicated' | 'abandoned' | 'conflict';

/**
 * One request to a side-effecting service. `id` is the effect_id answered to the
 * client: a deduplicated record carries the id of the original committed effect.
 */
export interface EffectRecord {
  id: string;
  name: string;
  idempotencyKey: string | null;
  receivedNs: bigint;
  committedNs: bigint | null;
  outcome: EffectOutcome;
  clientClosedBeforeCommit: boolean;
}

type Jsonified<T> = {
  [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K] extends bigint[] ? string[] : T[K];
};

export type ModelRequestRecordJSON = Jsonified<ModelRequestRecord>;
export type EffectRecordJSON = Jsonified<EffectRecord>;

export interface LedgerJSON {
  modelRequests: ModelRequestRecordJSON[];
  effects: EffectRecordJSON[];
}

export interface LedgerSnapshot {
  modelRequests: ModelRequestRecord[];
  effects: EffectRecord[];
}

export class Ledger {
  readonly modelRequests: ModelRequestRecord[] = [];
  readonly effects: EffectRecord[] = [];

  addModelRequest(record: ModelRequestRecord): void {
    this.modelRequests.push(Object.freeze({ ...record, toolCalls: record.toolCalls.map((t) => ({ ...t })) }));
  }

  addEffect(record: EffectRecord): void {
    this.effects.push(Object.freeze({ ...record }));
  }

  /** JSON form: bigint times as decimal strings. */
  toJSON(): LedgerJSON {
    return {
      modelRequests: this.modelRequests.map((r) => ({
        ...r,
        toolCalls: r.toolCalls.map((t) => ({ ...t })),
        startNs: r.startNs.toString(),
        endNs: r.endNs.toString(),
        outputTokensSentNs: r.outputTokensSentNs.map(String),
      })),
      effects: this.effects.map((e) => ({
        ...e,
        receivedNs: e.receivedNs.toString(),
        committedNs: e.committedNs === null ? null : e.committedNs.toString(),
      })),
    };
  }
}

/** Inverse of Ledger.toJSON (e.g. for the body of GET /ledger). */
export function ledgerFromJSON(json: LedgerJSON): LedgerSnapshot {
  return {
    modelRequests: json.modelRequests.map((r) => ({
      ...r,
      toolCalls: r.toolCalls.map((t) => ({ ...t })),
      startNs: BigInt(r.startNs),
      endNs: BigInt(r.endNs),
      outputTokensSentNs: r.outputTokensSentNs.map((t) => BigInt(t)),
    })),
    effects: json.effects.map((e) => ({
      ...e,
      receivedNs: BigInt(e.receivedNs),
      committedNs: e.committedNs === null ? null : BigInt(e.committedNs),
    })),
  };
}
