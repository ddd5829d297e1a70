import { observeModelCall, type ObservedModelCall } from './model-observer.js';
import { observeReadable } from './observe-readable.js';
import { safely } from '../adapter-api.js';

/**
 * A Vercel AI SDK language model (the provider's `LanguageModelV2`/`V3`
 * object: `@ai-sdk/openai`, `@ai-sdk/anthropic`, ...), seen through a proxy
 * whose `doStream` and `doGenerate` record a model call: chunks as they
 * arrive, the provider's usage and finish reason, the abort. Observing at
 * this layer covers every provider package at once, and the calls the SDK's
 * own telemetry loses (the step in flight at abort).
 */
type Json = Record<string, unknown>;
interface LanguageModel {
  provider?: unknown;
  modelId?: unknown;
  doStream?: (options: Json) => PromiseLike<Json>;
  doGenerate?: (options: Json) => PromiseLike<Json>;
}

export const AI_SDK_FRAMEWORK = 'vercel-ai';
const OBSERVED = Symbol.for('afterstop.ai-sdk.observed-model');

/** The model as the app gave it, observed; anything else (a model id string, an unknown shape) unchanged. */
export function observedModel(model: unknown): unknown {
  if (typeof model !== 'object' || model === null) return model;
  const m = model as LanguageModel & { [OBSERVED]?: true };
  if (m[OBSERVED] === true || typeof m.doStream !== 'function' || typeof m.doGenerate !== 'function') return model;
  return new Proxy(m, {
    get(target, property) {
      if (property === OBSERVED) return true;
      if (property === 'doStream') return (options: Json) => doStream(target, options);
      if (property === 'doGenerate') return (options: Json) => doGenerate(target, options);
      // The model's own getters and methods run on the model itself (its private fields are not on the proxy).
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // A proxy must hand back a frozen property as it is.
      const own = Object.getOwnPropertyDescriptor(target, property);
      return own !== undefined && own.configurable === false && own.writable === false ? value : (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

/** A model call of this model, about to be made with these call options. */
export function startModelCall(model: { provider?: unknown; modelId?: unknown }, options: Json): ObservedModelCall {
  const provider = typeof model.provider === 'string' ? (model.provider.split('.')[0] ?? model.provider) : 'unknown';
  return observeModelCall({
    provider,
    framework: AI_SDK_FRAMEWORK,
    model: typeof model.modelId === 'string' ? model.modelId : 'unknown',
    signal: options?.['abortSignal'] instanceof AbortSignal ? options['abortSignal'] : undefined,
    inputMessages: options?.['prompt'] ?? options?.['messages'],
  });
}

/** A call given a signal that has already aborted: the provider's fetch sends nothing (ai 5.0 and 7.0.0 still make such a call after the Stop). */
const neverSent = (options: Json): boolean => options?.['abortSignal'] instanceof AbortSignal && options['abortSignal'].aborted;

async function doStream(model: LanguageModel, options: Json): Promise<Json> {
  if (neverSent(options)) return (model.doStream as NonNullable<LanguageModel['doStream']>).call(model, options);
  const call = startModelCall(model, options);
  let result: Json;
  try {
    result = await call.within(() => (model.doStream as NonNullable<LanguageModel['doStream']>).call(model, options));
  } catch (error) {
    call.end({ error, complete: false });
    throw error;
  }
  return observedStreamResult(result, call);
}

/** A `doStream` result with its stream observed (`cancelled`: told when the SDK cancels the stream before its end). */
export function observedStreamResult(result: Json, call: ObservedModelCall, cancelled?: (reason: unknown) => void): Json {
  return safely('ai-sdk model stream', () => ({ ...result, stream: observeParts(result['stream'] as ReadableStream<Json>, call, cancelled) }), undefined) ?? unobserved(result, call);
}

/** The stream could not be observed: the app gets it as it is, and the call is closed now rather than never. */
function unobserved(result: Json, call: ObservedModelCall): Json {
  call.end({ complete: false });
  return result;
}

async function doGenerate(model: LanguageModel, options: Json): Promise<Json> {
  if (neverSent(options)) return (model.doGenerate as NonNullable<LanguageModel['doGenerate']>).call(model, options);
  const call = startModelCall(model, options);
  let result: Json;
  try {
    result = await call.within(() => (model.doGenerate as NonNullable<LanguageModel['doGenerate']>).call(model, options));
  } catch (error) {
    call.end({ error, complete: false });
    throw error;
  }
  observeGenerateResult(result, call);
  return result;
}

/** A `doGenerate` result: its text, usage and finish reason recorded, and the call ended. */
export function observeGenerateResult(result: Json, call: ObservedModelCall): void {
  safely(
    'ai-sdk model result',
    () => {
      const response = result['response'] as Json | undefined;
      if (typeof response?.['modelId'] === 'string') call.responseModel(response['modelId']);
      for (const part of (result['content'] as Json[] | undefined) ?? []) if (part?.['type'] === 'text' && typeof part['text'] === 'string') call.text(part['text']);
      finish(call, result);
      call.end({ complete: true });
    },
    undefined,
  );
}

/** Usage and finish reason, in the V2 (numbers, a string) and V3/V4 (`{ total }`, `{ unified, raw }`) shapes. */
function finish(call: ObservedModelCall, part: Json): void {
  const usage = part['usage'] as Json | undefined;
  const count = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof (v as Json | undefined)?.['total'] === 'number' ? ((v as Json)['total'] as number) : undefined);
  const input = count(usage?.['inputTokens']);
  const output = count(usage?.['outputTokens']);
  if (input !== undefined || output !== undefined) call.usage({ ...(input !== undefined ? { inputTokens: input } : {}), ...(output !== undefined ? { outputTokens: output } : {}) });
  const reason = part['finishReason'] as unknown;
  const text = typeof reason === 'string' ? reason : typeof (reason as Json | undefined)?.['raw'] === 'string' ? (reason as Json)['raw'] : (reason as Json | undefined)?.['unified'];
  if (typeof text === 'string') call.finishReason(text);
}

const OUTPUT_PARTS = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

function observeParts(stream: ReadableStream<Json>, call: ObservedModelCall, cancelled?: (reason: unknown) => void): ReadableStream<Json> {
  let complete = false;
  let error: unknown;
  return observeReadable(stream, {
    chunk(part) {
      const type = part?.['type'];
      if (typeof type !== 'string') return;
      if (OUTPUT_PARTS.has(type)) {
        call.chunk();
        if (type === 'text-delta') {
          const delta = part['delta'] ?? part['textDelta'];
          if (typeof delta === 'string') call.text(delta);
        }
      } else if (type === 'response-metadata' && typeof part['modelId'] === 'string') call.responseModel(part['modelId']);
      else if (type === 'finish') {
        finish(call, part);
        complete = true;
      } else if (type === 'error') error = part['error'];
    },
    done: () => call.end(error === undefined ? { complete } : { error, complete: false }),
    error: (e) => call.end({ error: e, complete: false }),
    cancel: (reason) => {
      call.end({ complete });
      cancelled?.(reason);
    },
  });
}
