import { InstrumentationBase, InstrumentationNodeModuleDefinition, isWrapped, type InstrumentationConfig } from '@opentelemetry/instrumentation';
import { safely } from '../safe.js';
import { VERSION } from '../version.js';
import { observeModelCall, type ObservedModelCall } from './model-observer.js';
import { observeResult, type ApiPromise, type Json, type Observers } from './sdk-stream.js';

/** The `@anthropic-ai/sdk` versions this instrumentation is tested with (README: supported versions). */
export const ANTHROPIC_VERSIONS = ['>=0.20.0 <2'];

type Create = (this: unknown, body: Json, options?: Json) => unknown;

/**
 * Messages of the `@anthropic-ai/sdk` client: `client.messages.create(...)`,
 * streamed or not (`client.messages.stream()` goes through it too).
 */
export class AnthropicInstrumentation extends InstrumentationBase {
  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-anthropic', VERSION, config);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return [
      new InstrumentationNodeModuleDefinition(
        '@anthropic-ai/sdk',
        ANTHROPIC_VERSIONS,
        (exports: Json) => {
          const messages = messagesPrototype(exports);
          if (messages && !isWrapped(messages['create'])) this._wrap(messages, 'create', (original) => wrapCreate(original as Create));
          return exports;
        },
        (exports: Json) => {
          const messages = messagesPrototype(exports);
          if (messages && isWrapped(messages['create'])) this._unwrap(messages, 'create');
        },
      ),
    ];
  }
}

/** `Anthropic.Messages.prototype`, as the package exports it (CommonJS or ESM). */
function messagesPrototype(exports: Json): Json | undefined {
  const client = (exports['Anthropic'] ?? (exports['default'] as Json | undefined)?.['Anthropic'] ?? exports['default']) as Json | undefined;
  return (client?.['Messages'] as { prototype?: Json } | undefined)?.prototype;
}

function wrapCreate(original: Create): Create {
  return function create(this: unknown, body: Json, options?: Json): unknown {
    const call = safely(
      'anthropic create',
      () => observeModelCall({
        provider: 'anthropic',
        framework: 'anthropic-sdk',
        model: typeof body?.['model'] === 'string' ? body['model'] : 'unknown',
        signal: options?.['signal'] instanceof AbortSignal ? options['signal'] : undefined,
      }),
      undefined,
    );
    // The app's call, untouched: whatever telemetry does, this is what it gets. It runs with the
    // model call's span active, so that the SDK's own spans (and HTTP spans) are its children.
    if (call === undefined) return original.call(this, body, options);
    const result = call.within(() => original.call(this, body, options)) as ApiPromise;
    return safely('anthropic result', () => observeResult(result, call, body?.['stream'] === true, MESSAGES), result);
  };
}

function usage(call: ObservedModelCall, u: Json | undefined): void {
  if (!u || typeof u !== 'object') return;
  call.usage({
    ...(typeof u['input_tokens'] === 'number' ? { inputTokens: u['input_tokens'] } : {}),
    ...(typeof u['output_tokens'] === 'number' ? { outputTokens: u['output_tokens'] } : {}),
  });
}

const MESSAGES: Observers = {
  chunk(call, event, finished) {
    switch (event['type']) {
      case 'message_start': {
        const message = event['message'] as Json | undefined;
        if (typeof message?.['model'] === 'string') call.responseModel(message['model']);
        // Its output_tokens is what was produced so far (0 or 1): only the input is final here.
        const u = message?.['usage'] as Json | undefined;
        if (typeof u?.['input_tokens'] === 'number') call.usage({ inputTokens: u['input_tokens'] });
        break;
      }
      case 'content_block_delta':
        call.chunk();
        break;
      case 'message_delta': {
        const reason = (event['delta'] as Json | undefined)?.['stop_reason'];
        if (typeof reason === 'string') call.finishReason(reason);
        usage(call, event['usage'] as Json | undefined);
        break;
      }
      case 'message_stop':
        finished();
        break;
    }
  },
  value(call, message) {
    if (typeof message['model'] === 'string') call.responseModel(message['model']);
    if (typeof message['stop_reason'] === 'string') call.finishReason(message['stop_reason']);
    usage(call, message['usage'] as Json | undefined);
    call.end({ complete: true });
  },
};
