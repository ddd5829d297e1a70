import type { ObservedModelCall } from './model-observer.js';
import { sdkCreateInstrumentation } from './sdk-instrumentation.js';
import type { Json } from './sdk-stream.js';

/** The `openai` versions this instrumentation is tested with (README: supported versions). */
export const OPENAI_VERSIONS = ['>=4.0.0 <8'];

/** Chat Completions of the `openai` client: `client.chat.completions.create(...)`, streamed or not. */
export const OpenAIInstrumentation = sdkCreateInstrumentation({
  name: 'afterstop-openai',
  module: 'openai',
  versions: OPENAI_VERSIONS,
  client: 'OpenAI',
  resource: (client) => ((client?.['Chat'] as Json | undefined)?.['Completions'] as { prototype?: Json } | undefined),
  provider: 'openai',
  framework: 'openai-sdk',
  observers: { chunk: onChunk, value: completion },
});

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
