import { types } from 'node:util';
import { context } from '@opentelemetry/api';
import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { safely } from '../safe.js';
import { VERSION } from '../version.js';
import { agentTargets } from './ai-sdk-agent.js';
import { AiSdkRun } from './ai-sdk-run.js';
import { moduleDefinitions } from './module-definitions.js';

/** The `ai` versions this instrumentation is tested with (README: supported versions). */
export const AI_SDK_VERSIONS = ['>=5.0.0 <7'];

type Json = Record<string, unknown>;
type Fn = (this: unknown, options: Json) => unknown;
const ENTRY_POINTS = { streamText: true, generateText: false } as const;

/**
 * The Vercel AI SDK's `streamText` and `generateText` (see ai-sdk-run.ts for
 * what a call records). ESM namespaces are patched in place through the
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
    return moduleDefinitions('afterstop-ai-sdk', 'ai', AI_SDK_VERSIONS, (exports: Json) => this.patch(exports), (exports: Json) => this.unpatch(exports));
  }

  private patch(exports: Json): Json {
    // The agent classes are patched on their prototypes, whatever the build (a prototype is writable).
    for (const [proto, method, wrap] of agentTargets(exports)) if (!isWrapped(proto[method])) this._wrap(proto, method, wrap);
    const inPlace = types.isProxy(exports) || Object.entries(ENTRY_POINTS).every(([name]) => Object.getOwnPropertyDescriptor(exports, name)?.configurable !== false);
    if (inPlace) {
      for (const [name, streamed] of Object.entries(ENTRY_POINTS)) {
        if (typeof exports[name] === 'function' && !isWrapped(exports[name])) this._wrap(exports, name, (original) => wrapEntry(original as Fn, streamed));
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
      Object.defineProperty(copy, name, { value: wrapEntry(original as Fn, streamed), enumerable: true, writable: true, configurable: true });
    }
    this.copies.set(exports, { copy, originals });
    return copy;
  }

  private unpatch(exports: Json): void {
    for (const [proto, method] of agentTargets(exports)) if (isWrapped(proto[method])) this._unwrap(proto, method);
    const copied = this.copies.get(exports);
    if (copied !== undefined) {
      for (const [name, original] of Object.entries(copied.originals)) copied.copy[name] = original;
      return;
    }
    for (const name of Object.keys(ENTRY_POINTS)) if (isWrapped(exports[name])) this._unwrap(exports, name);
  }
}

function wrapEntry(original: Fn, streamed: boolean): Fn {
  return function observedEntry(this: unknown, options: Json): unknown {
    const run = safely('ai-sdk run start', () => (options && typeof options === 'object' ? new AiSdkRun(options) : undefined), undefined);
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
