import { types } from 'node:util';
import { context } from '@opentelemetry/api';
import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { safely, VERSION } from '../adapter-api.js';
import { agentTargets, type EntryRun, type EntryRunClass } from './ai-sdk-agent.js';
import { AiSdkHookedRun } from './ai-sdk-entry.js';
import { AiSdkRun } from './ai-sdk-run.js';
import { registerAfterstop, unregisterAfterstop } from './ai-sdk-telemetry.js';
import { moduleDefinitions } from './module-definitions.js';

/** The `ai` versions this instrumentation is tested with (docs/instrumentations.md: supported versions): 5 and 6 by their options, 7 by its telemetry hooks. */
export const AI_SDK_VERSIONS = ['>=5.0.0 <7', '>=7.0.0 <8'];

type Json = Record<string, unknown>;
type Fn = (this: unknown, options: Json) => unknown;
const ENTRY_POINTS = { streamText: true, generateText: false } as const;

/** Each major's way in: 7 has telemetry hooks (ai-sdk-telemetry.ts), 5 and 6 the call's options (ai-sdk-run.ts). */
const hooked = (version: string | undefined): boolean => Number.parseInt(version ?? '', 10) >= 7;

/**
 * The Vercel AI SDK's `streamText` and `generateText` and its agent class.
 * In 5 and 6 a call records through the options it is given (ai-sdk-run.ts);
 * in 7 through the SDK's telemetry hooks, with afterstop registered as an
 * integration (ai-sdk-telemetry.ts), the entry points giving it their abort
 * signal (ai-sdk-entry.ts). ESM namespaces are patched in place through the
 * loader hook; the CommonJS build's exports are read-only getters, so there
 * the patch hands back a copy of the exports with the two functions wrapped.
 */
export class AiSdkInstrumentation extends InstrumentationBase {
  static readonly module = 'ai';
  /** The CommonJS copies handed out, by the exports they copy (what disable() is given back), with the originals. */
  private readonly copies = new WeakMap<object, { copy: Json; originals: Record<string, unknown> }>();

  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-ai-sdk', VERSION, config);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return moduleDefinitions(
      'afterstop-ai-sdk',
      'ai',
      AI_SDK_VERSIONS,
      (exports: Json, version) => this.patch(exports, version),
      (exports: Json) => this.unpatch(exports),
    );
  }

  private patch(exports: Json, version: string | undefined): Json {
    const Run: EntryRunClass = hooked(version) ? AiSdkHookedRun : AiSdkRun;
    if (hooked(version)) safely('ai-sdk register', () => registerAfterstop(exports), undefined);
    // The agent classes are patched on their prototypes, whatever the build (a prototype is writable).
    for (const [proto, method, wrap] of agentTargets(exports, Run)) if (!isWrapped(proto[method])) this._wrap(proto, method, wrap);
    const inPlace = types.isProxy(exports) || Object.entries(ENTRY_POINTS).every(([name]) => Object.getOwnPropertyDescriptor(exports, name)?.configurable !== false);
    if (inPlace) {
      for (const [name, streamed] of Object.entries(ENTRY_POINTS)) {
        if (typeof exports[name] === 'function' && !isWrapped(exports[name])) this._wrap(exports, name, (original) => wrapEntry(original as Fn, streamed, Run));
      }
      return exports;
    }
    // The same getters, made configurable so that the two entry points can be replaced.
    const descriptors = Object.getOwnPropertyDescriptors(exports);
    for (const d of Object.values(descriptors)) d.configurable = true;
    const copy = Object.defineProperties({}, descriptors) as Json;
    const originals: Record<string, unknown> = {};
    for (const [name, streamed] of Object.entries(ENTRY_POINTS)) {
      const original = exports[name];
      if (typeof original !== 'function') continue;
      originals[name] = original;
      Object.defineProperty(copy, name, { value: wrapEntry(original as Fn, streamed, Run), enumerable: true, writable: true, configurable: true });
    }
    this.copies.set(exports, { copy, originals });
    return copy;
  }

  private unpatch(exports: Json): void {
    unregisterAfterstop();
    for (const [proto, method] of agentTargets(exports, AiSdkRun)) if (isWrapped(proto[method])) this._unwrap(proto, method);
    const copied = this.copies.get(exports);
    if (copied !== undefined) {
      for (const [name, original] of Object.entries(copied.originals)) copied.copy[name] = original;
      return;
    }
    for (const name of Object.keys(ENTRY_POINTS)) if (isWrapped(exports[name])) this._unwrap(exports, name);
  }
}

function wrapEntry(original: Fn, streamed: boolean, Run: EntryRunClass): Fn {
  return function observedEntry(this: unknown, options: Json): unknown {
    const run = safely('ai-sdk run start', (): EntryRun | undefined => (options && typeof options === 'object' ? new Run(options) : undefined), undefined);
    if (run === undefined) return original.call(this, options);
    const patched = safely('ai-sdk options', () => run.options(options), options);
    const ctx = run.context;
    const call = () => original.call(this, patched);
    let result: unknown;
    try {
      result = ctx === undefined ? call() : context.with(ctx, call);
    } catch (error) {
      safely('ai-sdk failed', () => run.failed(error), undefined);
      throw error;
    }
    if (streamed) {
      safely('ai-sdk result', () => run.watchResult(result), undefined);
      return result;
    }
    // generateText's promise: the app gets one that settles the same way, so that a rejection it
    // leaves unhandled stays unhandled (a handler on the SDK's own promise would hide it).
    return result instanceof Promise ? safely('ai-sdk result', () => run.settled(result as Promise<unknown>), result) : result;
  };
}
