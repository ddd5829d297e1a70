import { FRAMEWORK_OPENAI_SDK } from '../adapter-api.js';
import type { ObservedModelCall } from './model-observer.js';
import { sdkCreateInstrumentation } from './sdk-instrumentation.js';
import type { Json } from './sdk-stream.js';

/** The `openai` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
export const OPENAI_VERSIONS = ['>=4.13.0 <8'];

/**
 * The `openai` client's Chat Completions (`client.chat.completions.create(...)`)
 * and Responses (`client.responses.create(...)`, and `responses.stream()`,
 * which goes through it; versions without Responses get Chat Completions
 * only), streamed or not.
 */
export const OpenAIInstrumentation = sdkCreateInstrumentation({
  name: 'afterstop-openai',
  module: 'openai',
  versions: OPENAI_VERSIONS,
  client: 'OpenAI',
  resources: [
    { resource: (client) => (client?.['Chat'] as Json | undefined)?.['Completions'] as { prototype?: Json } | undefined, observers: { chunk: onChunk, value: completion } },
    { resource: (client) => client?.['Responses'] as { prototype?: Json } | undefined, observers: { chunk: onResponseEvent, value: response } },
  ],
  provider: 'openai',
  framework: FRAMEWORK_OPENAI_SDK,
});

/** A Responses API response (the body, or the one a final stream event carries). */
function response(call: ObservedModelCall, r: Json, end = true): void {
  if (typeof r['model'] === 'string') call.responseModel(r['model']);
  const u = r['usage'] as Json | undefined;
  if (u && typeof u === 'object') {
    call.usage({
      ...(typeof u['input_tokens'] === 'number' ? { inputTokens: u['input_tokens'] } : {}),
      ...(typeof u['output_tokens'] === 'number' ? { outputTokens: u['output_tokens'] } : {}),
    });
  }
  if (end) {
    // Not streamed: the text is in the output items (streamed, it came in deltas).
    for (const item of (r['output'] as Json[] | undefined) ?? []) {
      for (const part of (item?.['content'] as Json[] | undefined) ?? []) if (part?.['type'] === 'output_text' && typeof part['text'] === 'string') call.text(part['text']);
    }
  }
  const incomplete = (r['incomplete_details'] as Json | undefined)?.['reason'];
  const reason = typeof incomplete === 'string' ? incomplete : r['status'];
  if (typeof reason === 'string') call.finishReason(reason);
  if (end) call.end({ complete: true });
}

const RESPONSE_OUTPUT_EVENTS = new Set(['response.output_text.delta', 'response.function_call_arguments.delta', 'response.reasoning_summary_text.delta', 'response.refusal.delta']);
const RESPONSE_FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

function onResponseEvent(call: ObservedModelCall, event: Json, finished: () => void): void {
  const type = event['type'];
  if (typeof type !== 'string') return;
  if (RESPONSE_OUTPUT_EVENTS.has(type)) {
    call.chunk();
    if (type === 'response.output_text.delta' && typeof event['delta'] === 'string') call.text(event['delta']);
  } else if (RESPONSE_FINAL_EVENTS.has(type)) {
    const r = event['response'] as Json | undefined;
    if (r) response(call, r, false);
    finished();
  }
}

function completion(call: ObservedModelCall, c: Json): void {
  usage(call, c['usage']);
  if (typeof c['model'] === 'string') call.responseModel(c['model']);
  for (const choice of (c['choices'] as Json[] | undefined) ?? []) {
    if (typeof choice['finish_reason'] === 'string') call.finishReason(choice['finish_reason']);
    // The first choice's text (with n > 1, the others are alternatives, not more of it).
    const content = (choice['message'] as Json | undefined)?.['content'];
    if (typeof content === 'string' && (choice['index'] ?? 0) === 0) call.text(content);
  }
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
    if (typeof content === 'string' && content !== '' && (choice['index'] ?? 0) === 0) call.text(content);
    if (typeof choice['finish_reason'] === 'string') {
      call.finishReason(choice['finish_reason']);
      finished();
    }
  }
}
