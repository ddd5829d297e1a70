import { InstrumentationBase, InstrumentationNodeModuleDefinition, isWrapped, type InstrumentationConfig } from '@opentelemetry/instrumentation';
import { safely } from '../safe.js';
import { VERSION } from '../version.js';
import { observeModelCall, type ObservedModelCall } from './model-observer.js';
import { observeResult, type ApiPromise, type Json, type Observers } from './sdk-stream.js';

/** The `openai` versions this instrumentation is tested with (README: supported versions). */
export const OPENAI_VERSIONS = ['>=4.0.0 <8'];

type Create = (this: unknown, body: Json, options?: Json) => unknown;

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
    // The app's call, untouched: whatever telemetry does, this is what it gets. It runs with the
    // model call's span active, so that the SDK's own spans (and HTTP spans) are its children.
    if (call === undefined) return original.call(this, body, options);
    const result = call.within(() => original.call(this, body, options)) as ApiPromise;
    return safely('openai result', () => observeResult(result, call, body?.['stream'] === true, CHAT_COMPLETIONS), result);
  };
}

function completion(call: ObservedModelCall, c: Json): void {
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

const CHAT_COMPLETIONS: Observers = { chunk: onChunk, value: completion };
