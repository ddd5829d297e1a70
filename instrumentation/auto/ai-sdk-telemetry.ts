import { context, createContextKey, type Context, type HrTime } from '@opentelemetry/api';
import {
  activeRun,
  callContext,
  cancelSourceOf,
  contextOf,
  endStoppedRun,
  endToolCall,
  hrTime,
  isAbortError,
  joinOrStartRun,
  observeCall,
  recordToolOutput,
  safely,
  startFrameworkTool,
  toolBodyEnded,
  type Run,
  type ToolCall,
} from '../adapter-api.js';
import { AI_SDK_FRAMEWORK, observedStreamResult, observeGenerateResult, startModelCall } from './ai-sdk-model.js';

/**
 * afterstop as an AI SDK 7 telemetry integration: the SDK's own extension
 * point (`registerTelemetry`, or a call's `telemetry.integrations`), which
 * sees every entry point that runs the tool loop — generateText, streamText,
 * ToolLoopAgent, the UI message stream helpers over them. What a call records:
 * - its run: the one active when the call starts (the entry point's, see
 *   ai-sdk-entry.ts, or the app's own), else one started here;
 * - the Stop: the abort signal the entry point was given (seen there), else
 *   the SDK's `onAbort` (its reason says the source); a stream the app
 *   cancelled that stops the SDK with it (no reader left) is a Stop too;
 * - the acknowledgement when the SDK has stopped: `onAbort`, `onError`,
 *   `onEnd`, or the cancelled stream;
 * - every model call, in `executeLanguageModelCall`: its stream observed
 *   chunk by chunk (tokens after Stop), its usage and finish reason;
 * - every tool call, in `executeTool`: its body runs in the tool call's
 *   context (the HTTP commit detector ties its requests to it); its result is
 *   delivered when streamText streams it to the app's reader (it came back
 *   before the Stop), when generateText's step ends, or when the call
 *   completes; dropped when the SDK stopped first.
 * Every hook falls back to the SDK's own call when telemetry fails.
 */
type Json = Record<string, unknown>;

/** One SDK call (a `callId`) while it runs, and after it stopped while tool bodies still run. */
interface CallState {
  id: string;
  run: Run;
  /** afterstop started the run for this call (else the app's, or an enclosing call's): it ends it. */
  own: boolean;
  /** streamText: a tool result goes to the app's reader as it comes (generateText: with its step). */
  streamed: boolean;
  /** Tool calls whose body returned, waiting for their step to end. */
  pending: Map<string, { call: ToolCall; endTime: HrTime }>;
  /** Tool calls whose body runs, by tool call id. */
  running: Map<string, ToolCall>;
  stopped: boolean;
}

/** What an entry point leaves in the context of the SDK call it makes: its run, for that call's start to claim. */
interface EntryToken {
  run: Run;
  own: boolean;
  claimed: boolean;
}
const ENTRY_KEY = createContextKey('afterstop.ai-sdk.entry');

/** The context an entry point runs its SDK call in (its call context, see callContext), with the token of this call. */
export const contextWithEntry = (ctx: Context, run: Run, own: boolean): Context => ctx.setValue(ENTRY_KEY, { run, own, claimed: false } satisfies EntryToken);

const OPERATIONS = new Set(['ai.generateText', 'ai.streamText']);

/** The calls under way, by callId (a safety bound: past it, the oldest are forgotten, never the app's memory). */
const calls = new Map<string, CallState>();
const MAX_CALLS = 10_000;

function start(event: Json): void {
  const id = event['callId'];
  if (!OPERATIONS.has(String(event['operationId'])) || typeof id !== 'string') return;
  // The run an entry point started for this very call (its token, claimed once), else the active one or a new one.
  const token = context.active().getValue(ENTRY_KEY) as EntryToken | undefined;
  const claimed = token !== undefined && !token.claimed && token.run === activeRun();
  if (claimed) token.claimed = true;
  const { run, own } = claimed ? token : joinOrStartRun({ framework: AI_SDK_FRAMEWORK, agentName: event['functionId'] });
  if (calls.size >= MAX_CALLS) calls.delete(calls.keys().next().value as string);
  calls.set(id, { id, run, own, streamed: event['operationId'] === 'ai.streamText', pending: new Map(), running: new Map(), stopped: false });
}

function stateOf(event: unknown): CallState | undefined {
  const id = (event as Json | undefined)?.['callId'];
  return typeof id === 'string' ? calls.get(id) : undefined;
}

/** The SDK stopped this call: results not yet delivered are delivered when it completed, else dropped; the run is over when it is afterstop's. */
function stop(state: CallState | undefined, outcome: { error?: unknown; abortReason?: unknown; completed?: boolean }): void {
  if (state === undefined || state.stopped) return;
  state.stopped = true;
  if (state.running.size === 0) calls.delete(state.id);
  settlePending(state, outcome.completed === true ? 'delivered' : 'dropped');
  if (!state.own) return;
  const aborted = outcome.abortReason !== undefined || (outcome.error !== undefined && isAbortError(outcome.error, state.run.signal));
  // No abort signal was seen (an entry point afterstop does not wrap): the SDK's abort is the Stop.
  if (aborted && state.run.cancelState === 'none') void state.run.cancel({ source: cancelSourceOf(outcome.abortReason ?? outcome.error), reason: 'the AI SDK was aborted' });
  endStoppedRun(state.run, outcome.error, outcome.error === undefined || aborted);
}

/** The results waiting for their step, ended as `result`, at the moment each body returned. */
function settlePending(state: CallState, result: 'delivered' | 'dropped'): void {
  for (const { call, endTime } of state.pending.values()) endToolCall(call, { result }, endTime);
  state.pending.clear();
}

/** A step ended: its tool results are in the history the next step sends, unless the run was stopped (then they wait for how the call ends). */
function stepEnded(state: CallState | undefined): void {
  if (state !== undefined && !state.stopped && state.run.cancelState === 'none') settlePending(state, 'delivered');
}

async function executeLanguageModelCall<T>(options: Json & { execute: () => PromiseLike<T> }): Promise<T> {
  const { execute } = options;
  const state = stateOf(options);
  // After the Stop, the SDK hands the provider the aborted signal: no request goes out (7.0.0 still makes the call).
  if (state === undefined || state.run.cancelState !== 'none') return execute();
  const call = safely('ai-sdk model start', () => context.with(callContext(state.run, state.own), () => startModelCall(options as { provider?: unknown; modelId?: unknown }, options)), undefined);
  if (call === undefined) return execute();
  let result: T;
  try {
    result = await call.within(execute);
  } catch (error) {
    call.end({ error, complete: false });
    throw error;
  }
  const r = result as Json;
  if (r?.['stream'] instanceof ReadableStream) return observedStreamResult(r, call, (reason) => safely('ai-sdk stream cancel', () => streamCancelled(state, reason), undefined)) as T;
  observeGenerateResult(r, call);
  return result;
}

/**
 * The SDK cancelled the model's stream. After an abort, onAbort follows; otherwise the app cancelled the
 * stream it read and no reader is left: the SDK stopped with it, with no hook of its own to say so.
 */
function streamCancelled(state: CallState, reason: unknown): void {
  if (state.stopped || state.run.cancelState !== 'none' || isAbortError(reason)) return;
  if (state.own && state.run.cancelState === 'none') void state.run.cancel({ source: 'user', reason: 'the app cancelled the stream it was reading' });
  stop(state, {});
}

function executeTool<T>(options: Json & { execute: () => PromiseLike<T> }): PromiseLike<T> {
  const { execute } = options;
  const state = stateOf(options);
  const toolCall = options['toolCall'] as Json | undefined;
  const callId = options['toolCallId'] ?? toolCall?.['toolCallId'];
  const name = typeof toolCall?.['toolName'] === 'string' ? toolCall['toolName'] : 'unknown';
  const call = state === undefined ? undefined : startFrameworkTool('ai-sdk tool start', state.run, name, callId, toolCall?.['input']);
  if (state === undefined || call === undefined) return execute();
  state.running.set(call.callId, call);
  // The body's result comes with onToolExecutionEnd; a throw that it does not tell ends the call here.
  return observeCall('ai-sdk tool body', contextOf(call), execute, (outcome) => {
    if ('error' in outcome && state.running.has(call.callId)) toolEnded({ callId: state.id, toolOutput: { type: 'tool-error', toolCallId: call.callId, error: outcome.error } });
  });
}

/** The body returned: its result waits for its step to end (delivered) unless the SDK already stopped (dropped). */
function toolEnded(event: Json): void {
  const state = stateOf(event);
  const output = event['toolOutput'] as Json | undefined;
  const id = output?.['toolCallId'] ?? (event['toolCall'] as Json | undefined)?.['toolCallId'];
  const call = typeof id === 'string' ? state?.running.get(id) : undefined;
  if (state === undefined || call === undefined) return;
  state.running.delete(call.callId);
  if (state.stopped && state.running.size === 0) calls.delete(state.id);
  if (output?.['type'] === 'tool-error') return call.end({ error: output['error'] });
  recordToolOutput(call, output?.['output']);
  if (state.stopped) return endToolCall(call, { result: 'dropped' });
  // streamText hands the result to the app's reader at once, unless the Stop already cancelled the reader.
  if (state.streamed && state.run.cancelState === 'none') return endToolCall(call, { result: 'delivered' });
  state.pending.set(call.callId, { call, endTime: hrTime() });
  toolBodyEnded(call);
}

const GLOBAL_INTEGRATIONS = 'AI_SDK_TELEMETRY_INTEGRATIONS';

/** The SDK's global list of integrations (what `registerTelemetry` fills): what a call without its own list runs. */
export function globalIntegrations(): unknown[] {
  const list = (globalThis as Json)[GLOBAL_INTEGRATIONS];
  return Array.isArray(list) ? list : [];
}

/** afterstop in the global list, through the SDK's own `registerTelemetry`, once. */
export function registerAfterstop(exports: Json): void {
  if (!globalIntegrations().includes(afterstopTelemetry) && typeof exports['registerTelemetry'] === 'function') (exports['registerTelemetry'] as (...i: unknown[]) => void)(afterstopTelemetry);
}

/** Out of the global list again (disable()). */
export function unregisterAfterstop(): void {
  const list = globalIntegrations();
  const at = list.indexOf(afterstopTelemetry);
  if (at >= 0) list.splice(at, 1);
}

const ABORTED = (): DOMException => new DOMException('This operation was aborted', 'AbortError');

/** The integration: one object, registered once; each hook is safe (it never throws into the SDK). */
export const afterstopTelemetry = Object.freeze({
  onStart: (event: unknown): void => safely('ai-sdk start', () => start(event as Json), undefined),
  onStepEnd: (event: unknown): void => safely('ai-sdk step end', () => stepEnded(stateOf(event)), undefined),
  onToolExecutionEnd: (event: unknown): void => safely('ai-sdk tool end', () => toolEnded(event as Json), undefined),
  onAbort: (event: unknown): void => safely('ai-sdk abort', () => stop(stateOf(event), { abortReason: (event as Json | undefined)?.['reason'] ?? ABORTED() }), undefined),
  onError: (event: unknown): void => safely('ai-sdk error', () => stop(stateOf(event), { error: (event as Json | undefined)?.['error'] ?? event }), undefined),
  onEnd: (event: unknown): void => safely('ai-sdk end', () => stop(stateOf(event), { completed: true }), undefined),
  executeLanguageModelCall,
  executeTool,
});
