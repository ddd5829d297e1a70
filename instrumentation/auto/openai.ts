import { InstrumentationBase, InstrumentationNodeModuleDefinition, isWrapped, type InstrumentationConfig } from '@opentelemetry/instrumentation';
import { safely } from '../safe.js';
import { VERSION } from '../version.js';
import { observeModelCall, type ObservedModelCall } from './model-observer.js';

/** The `openai` versions this instrumentation is tested with (README: supported versions). */
export const OPENAI_VERSIONS = ['>=4.0.0 <8'];

type Json = Record<string, unknown>;
type Create = (this: unknown, body: Json, options?: Json) => unknown;
interface ApiPromise extends Promise<unknown> {
  _thenUnwrap?: (transform: (value: unknown) => unknown) => unknown;
  responsePromise?: Promise<unknown>;
}
interface SdkStream {
  iterator?: () => AsyncIterator<unknown>;
  controller?: AbortController;
}

/** Chat Completions of the `openai` client: `client.chat.completions.create(...)`, streamed or not. */
export class OpenAIInstrumentation extends InstrumentationBase {
  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-openai', VERSION, config);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return [
      new InstrumentationNodeModuleDefinition(
        'openai',
        OPENAI_VERSIONS,
        (exports: Json) => {
          const completions = chatCompletions(exports);
          if (completions && !isWrapped(completions['create'])) this._wrap(completions, 'create', (original) => wrapCreate(original as Create));
          return exports;
        },
        (exports: Json) => {
          const completions = chatCompletions(exports);
          if (completions && isWrapped(completions['create'])) this._unwrap(completions, 'create');
        },
      ),
    ];
  }
}

/** `OpenAI.Chat.Completions.prototype`, as the package exports it (CommonJS or ESM). */
function chatCompletions(exports: Json): Json | undefined {
  const client = (exports['OpenAI'] ?? (exports['default'] as Json | undefined)?.['OpenAI'] ?? exports['default']) as Json | undefined;
  const chat = client?.['Chat'] as Json | undefined;
  const completions = chat?.['Completions'] as { prototype?: Json } | undefined;
  return completions?.prototype;
}

function wrapCreate(original: Create): Create {
  return function create(this: unknown, body: Json, options?: Json): unknown {
    const call = safely(
      'openai create',
      () => observeModelCall({
        provider: 'openai',
        framework: 'openai-sdk',
        model: typeof body?.['model'] === 'string' ? body['model'] : 'unknown',
        signal: options?.['signal'] instanceof AbortSignal ? options['signal'] : undefined,
      }),
      undefined,
    );
    // The app's call, untouched: whatever telemetry does, this is what it gets.
    const result = original.call(this, body, options) as ApiPromise;
    if (call === undefined) return result;
    return safely('openai result', () => observe(result, call, body?.['stream'] === true), result);
  };
}

function observe(result: ApiPromise, call: ObservedModelCall, streamed: boolean): unknown {
  if (typeof result?._thenUnwrap !== 'function') {
    // Not the SDK's APIPromise: watch it settle, hand it back as it is.
    void Promise.resolve(result).then((value) => (streamed ? call.end({ complete: false }) : completion(call, value)), (error: unknown) => call.end({ error, complete: false }));
    return result;
  }
  // _thenUnwrap keeps the APIPromise (withResponse(), asResponse()) the app expects; it parses the
  // body only when the app asks for the value.
  const wrapped = result._thenUnwrap((value) => {
    safely('openai value', () => (streamed ? wrapStream(value as SdkStream, call) : completion(call, value)), undefined);
    return value;
  });
  // A request that fails (connection, HTTP error, abort before the first byte) ends the call with its error.
  // Watched on the raw response promise: a .then() on the APIPromise would read the body a second time.
  result.responsePromise?.then(undefined, (error: unknown) => call.end({ error, complete: false }));
  return wrapped;
}

function completion(call: ObservedModelCall, value: unknown): void {
  const c = value as Json;
  usage(call, c['usage']);
  if (typeof c['model'] === 'string') call.responseModel(c['model']);
  for (const choice of (c['choices'] as Json[] | undefined) ?? []) if (typeof choice['finish_reason'] === 'string') call.finishReason(choice['finish_reason']);
  call.end({ complete: true });
}

function usage(call: ObservedModelCall, value: unknown): void {
  const u = value as Json | undefined;
  if (u && typeof u === 'object') {
    call.usage({
      ...(typeof u['prompt_tokens'] === 'number' ? { inputTokens: u['prompt_tokens'] } : {}),
      ...(typeof u['completion_tokens'] === 'number' ? { outputTokens: u['completion_tokens'] } : {}),
    });
  }
}

/**
 * The SDK's Stream reads its chunks through `iterator` (for await, tee(),
 * toReadableStream()): wrap it to count chunks as they arrive and to end the
 * call when the stream ends, is broken out of, or aborts.
 */
function wrapStream(stream: SdkStream, call: ObservedModelCall): void {
  const inner = stream.iterator;
  if (typeof inner !== 'function') {
    call.end({ complete: false });
    return;
  }
  // The SDK aborts this controller when the app breaks out of the stream or aborts it itself.
  stream.controller?.signal.addEventListener('abort', () => call.stopped('the app stopped reading the stream'), { once: true });
  stream.iterator = async function* observed(this: unknown): AsyncGenerator<unknown> {
    let complete = false;
    let error: unknown;
    try {
      for await (const chunk of { [Symbol.asyncIterator]: () => inner.call(stream) }) {
        safely('openai chunk', () => onChunk(call, chunk as Json, () => (complete = true)), undefined);
        yield chunk;
      }
    } catch (e) {
      error = e;
      throw e;
    } finally {
      call.end({ error, complete: complete || (error === undefined && stream.controller?.signal.aborted !== true) });
    }
  };
}

function onChunk(call: ObservedModelCall, chunk: Json, finished: () => void): void {
  if (typeof chunk['model'] === 'string') call.responseModel(chunk['model']);
  usage(call, chunk['usage']);
  for (const choice of (chunk['choices'] as Json[] | undefined) ?? []) {
    const delta = choice['delta'] as Json | undefined;
    const content = delta?.['content'];
    if ((typeof content === 'string' && content !== '') || Array.isArray(delta?.['tool_calls'])) call.chunk();
    if (typeof choice['finish_reason'] === 'string') {
      call.finishReason(choice['finish_reason']);
      finished();
    }
  }
}
