import { context, createContextKey, type Context } from '@opentelemetry/api';
import { safely } from '../adapter-api.js';
import type { PatchTarget } from './framework-instrumentation.js';

/**
 * The AI SDK's own agent class (`ToolLoopAgent` in ai 6 and 7,
 * `Experimental_Agent` in 5, 6 and 7): its `generate` and `stream` call the
 * SDK's generateText and streamText through the module's own bindings, which
 * the patch of the exports does not reach. So the class is patched on its
 * prototype: each `generate` / `stream` is a run (Stop: the abortSignal it is
 * given), and `prepareCall`, which makes the arguments generateText /
 * streamText get, hands back what the major records through (5, 6: the
 * agent's model observed and its tools wrapped; 7: afterstop's integration in
 * its telemetry settings), for that run.
 */

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** What an agent call or an entry point records through, for one major of the SDK (ai-sdk-run.ts: 5 and 6; ai-sdk-entry.ts: 7). */
export interface EntryRun {
  readonly context: Context | undefined;
  /** `deadline: false`: not the abortSignal (prepareCall's arguments, whose signal generate / stream replace). */
  options(options: Json, deadline?: boolean): Json;
  /** An agent call's own options with the guard's deadline on their abortSignal (the run's, linked to the app's): what generate / stream hand the SDK last. */
  signalled(options: Json): Json;
  failed(error: unknown): void;
  watchResult(result: unknown): void;
  settled<T>(promise: Promise<T>): Promise<T>;
}
export type EntryRunClass = new (options: Json) => EntryRun;

/** The run of the agent call under way, for prepareCall. */
const AGENT_RUN = createContextKey('afterstop ai-sdk agent run');
const AGENT_CLASSES = ['ToolLoopAgent', 'Experimental_Agent'];

/** The prototype methods to patch in the package's exports (each class once: an alias names the same class). */
export function agentTargets(exports: Json, Run: EntryRunClass): PatchTarget[] {
  const prototypes = new Set<Json>();
  for (const name of AGENT_CLASSES) {
    const cls = exports[name];
    const proto = typeof cls === 'function' ? (cls.prototype as Json | undefined) : undefined;
    if (proto !== undefined && (typeof proto['generate'] === 'function' || typeof proto['stream'] === 'function')) prototypes.add(proto);
  }
  return [...prototypes].flatMap((proto): PatchTarget[] => {
    // ai 5.0's Experimental_Agent has no prepareCall: it calls generateText / streamText with its settings
    // overridden by the call's options, so the call's options are handed over whole, observed.
    const prepared = typeof proto['prepareCall'] === 'function';
    return [
      ...(typeof proto['generate'] === 'function' ? [[proto, 'generate', (o) => wrapAgentCall(o as Fn, false, Run, prepared)] as PatchTarget] : []),
      ...(typeof proto['stream'] === 'function' ? [[proto, 'stream', (o) => wrapAgentCall(o as Fn, true, Run, prepared)] as PatchTarget] : []),
      ...(prepared ? [[proto, 'prepareCall', (o) => wrapPrepareCall(o as Fn)] as PatchTarget] : []),
    ];
  });
}

/** The agent's name for its run: its `id`, else the functionId of its telemetry settings. */
function telemetryOf(settings: Json, call: Json): Json {
  const telemetry = (call['telemetry'] ?? call['experimental_telemetry'] ?? settings['telemetry'] ?? settings['experimental_telemetry'] ?? {}) as Json;
  const id = typeof settings['id'] === 'string' && settings['id'] !== '' ? settings['id'] : telemetry['functionId'];
  return { ...telemetry, ...(typeof id === 'string' ? { functionId: id } : {}) };
}

function wrapAgentCall(original: Fn, streamed: boolean, Run: EntryRunClass, prepared: boolean): Fn {
  return function agentCall(this: unknown, ...args: unknown[]): unknown {
    const call = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as Json;
    const settings = ((this as Json | undefined)?.['settings'] ?? {}) as Json;
    const run = safely('ai-sdk agent run start', (): EntryRun => new Run({ abortSignal: call['abortSignal'], runtimeContext: call['runtimeContext'], experimental_telemetry: telemetryOf(settings, call) }), undefined);
    if (run === undefined) return original.apply(this, args);
    const ctx = (run.context ?? context.active()).setValue(AGENT_RUN, run);
    // With prepareCall (ai 5.x after 5.0, 6, 7), generate / stream put the call's own abortSignal over
    // what prepareCall made: the deadline reaches the SDK only through the call's options.
    const callArgs = prepared
      ? args[0] !== null && typeof args[0] === 'object'
        ? [safely('ai-sdk agent deadline', () => run.signalled(call), call), ...args.slice(1)]
        : args
      : [safely('ai-sdk agent options', () => run.options({ ...settings, ...call }), call), ...args.slice(1)];
    let result: unknown;
    try {
      result = context.with(ctx, () => original.apply(this, callArgs));
    } catch (error) {
      safely('ai-sdk agent failed', () => run.failed(error), undefined);
      throw error;
    }
    if (!(result instanceof Promise)) {
      // ai 5.0's stream() hands back streamText's result itself.
      if (streamed) safely('ai-sdk agent result', () => run.watchResult(result), undefined);
      return result;
    }
    if (!streamed) return safely('ai-sdk agent result', () => run.settled(result as Promise<unknown>), result);
    // stream() resolves to streamText's result: its streams are watched as streamText's are.
    return (result as Promise<unknown>).then(
      (value) => {
        safely('ai-sdk agent result', () => run.watchResult(value), undefined);
        return value;
      },
      (error: unknown) => {
        safely('ai-sdk agent failed', () => run.failed(error), undefined);
        throw error;
      },
    );
  };
}

function wrapPrepareCall(original: Fn): Fn {
  return function prepareCall(this: unknown, ...args: unknown[]): unknown {
    const run = context.active().getValue(AGENT_RUN) as EntryRun | undefined;
    const prepared = original.apply(this, args);
    if (run === undefined) return prepared;
    const observe = (value: unknown): unknown => (value && typeof value === 'object' ? safely('ai-sdk agent options', () => run.options(value as Json, false), value) : value);
    return prepared instanceof Promise ? prepared.then(observe) : observe(prepared);
  };
}
