import { FRAMEWORK_ANTHROPIC_SDK } from '../adapter-api.js';
import type { ObservedModelCall } from './model-observer.js';
import { sdkCreateInstrumentation } from './sdk-instrumentation.js';
import type { Json } from './sdk-stream.js';

/** The `@anthropic-ai/sdk` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
export const ANTHROPIC_VERSIONS = ['>=0.20.0 <2'];

/**
 * Messages of the `@anthropic-ai/sdk` client: `client.messages.create(...)`,
 * streamed or not; `client.messages.stream()` starts the call itself (1.x
 * starts the SDK's own span there, before it calls create).
 */
export const AnthropicInstrumentation = sdkCreateInstrumentation({
  name: 'afterstop-anthropic',
  module: '@anthropic-ai/sdk',
  versions: ANTHROPIC_VERSIONS,
  client: 'Anthropic',
  resources: [{ resource: (client) => client?.['Messages'] as { prototype?: Json } | undefined, observers: { chunk: messageEvent, value: message }, helpers: ['stream'] }],
  provider: 'anthropic',
  framework: FRAMEWORK_ANTHROPIC_SDK,
});

function usage(call: ObservedModelCall, u: Json | undefined): void {
  if (!u || typeof u !== 'object') return;
  call.usage({
    ...(typeof u['input_tokens'] === 'number' ? { inputTokens: u['input_tokens'] } : {}),
    ...(typeof u['output_tokens'] === 'number' ? { outputTokens: u['output_tokens'] } : {}),
  });
}

function messageEvent(call: ObservedModelCall, event: Json, finished: () => void): void {
  switch (event['type']) {
    case 'message_start': {
      const message = event['message'] as Json | undefined;
      if (typeof message?.['model'] === 'string') call.responseModel(message['model']);
      // Its output_tokens is what was produced so far (0 or 1): only the input is final here.
      const u = message?.['usage'] as Json | undefined;
      if (typeof u?.['input_tokens'] === 'number') call.usage({ inputTokens: u['input_tokens'] });
      break;
    }
    case 'content_block_delta': {
      call.chunk();
      const text = (event['delta'] as Json | undefined)?.['text'];
      if (typeof text === 'string') call.text(text);
      break;
    }
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
}

function message(call: ObservedModelCall, message: Json): void {
  if (typeof message['model'] === 'string') call.responseModel(message['model']);
  for (const block of (message['content'] as Json[] | undefined) ?? []) if (block?.['type'] === 'text' && typeof block['text'] === 'string') call.text(block['text']);
  if (typeof message['stop_reason'] === 'string') call.finishReason(message['stop_reason']);
  usage(call, message['usage'] as Json | undefined);
  call.end({ complete: true });
}
