import { context, createContextKey } from '@opentelemetry/api';
import { safely } from '../adapter-api.js';
import { frameworkInstrumentation, type FrameworkInstrumentationClass, type PatchTarget } from './framework-instrumentation.js';
import { observeModelCall, type ModelCallStart, type ObservedModelCall } from './model-observer.js';
import { observeResult, type ApiPromise, type Json, type Observers } from './sdk-stream.js';

/**
 * The patch both provider clients get (they are generated alike): the
 * `create` method of one resource class, wrapped to observe the model call.
 * Declarative (package and versions), reversible (disable() unwraps), and
 * the app's call always goes through, whatever telemetry does.
 */
export interface SdkCreateSpec {
  /** The instrumentation's name, `afterstop-<provider>`. */
  name: string;
  module: string;
  versions: string[];
  /** The resource classes whose prototype's `create` is patched, each with what its responses look like. */
  resources: SdkResource[];
  /** The client class's export name (`OpenAI`, `Anthropic`). */
  client: string;
  provider: string;
  /** `afterstop.framework` of a call made outside any afterstop run. */
  framework: string;
}

export interface SdkResource {
  /** The class, from the client class (absent in versions that lack it: then not patched). */
  resource: (client: Json | undefined) => { prototype?: Json } | undefined;
  observers: Observers;
  /**
   * The resource's helpers that start the SDK's own span and then call
   * `create` (Anthropic's `messages.stream()`): the model call starts in the
   * helper, so that the SDK's span is its child (counted once), and `create`
   * takes it over.
   */
  helpers?: string[];
}

/** A model call a helper started, for the `create` it calls to take over. */
const HELPER_CALL = createContextKey('afterstop.sdk.helper-call');
type HelperCall = { call?: ObservedModelCall };

type Create = (this: unknown, body: Json, options?: Json) => unknown;

/** What a model call of this request is, for the observer. */
function startOf(spec: SdkCreateSpec, body: Json | undefined, options: Json | undefined): ModelCallStart {
  return {
    provider: spec.provider,
    framework: spec.framework,
    model: typeof body?.['model'] === 'string' ? body['model'] : 'unknown',
    signal: options?.['signal'] instanceof AbortSignal ? options['signal'] : undefined,
    // Chat Completions and Messages send `messages`, Responses `input`; Messages a `system` prompt,
    // Responses `instructions` (recorded only when content capture is on).
    inputMessages: body?.['messages'] ?? body?.['input'],
    systemInstructions: body?.['system'] ?? body?.['instructions'],
  };
}

/** The instrumentation class for one spec (see framework-instrumentation.ts). */
export function sdkCreateInstrumentation(spec: SdkCreateSpec): FrameworkInstrumentationClass {
  /** The prototypes to patch, as the package exports them (CommonJS or ESM), each with its observers. */
  const targets = (exports: Json): [Json, Observers, string[]][] => {
    const client = (exports[spec.client] ?? (exports['default'] as Json | undefined)?.[spec.client] ?? exports['default']) as Json | undefined;
    return spec.resources.flatMap((r): [Json, Observers, string[]][] => {
      const proto = r.resource(client)?.prototype;
      return proto ? [[proto, r.observers, r.helpers ?? []]] : [];
    });
  };
  return frameworkInstrumentation({
    name: spec.name,
    module: spec.module,
    versions: spec.versions,
    targets: (exports) =>
      targets(exports).flatMap(([proto, observers, helpers]): PatchTarget[] => [
        [proto, 'create', (original) => wrapCreate(original as Create, spec, observers)],
        ...helpers.filter((h) => typeof proto[h] === 'function').map((h): PatchTarget => [proto, h, (original) => wrapHelper(original as Create, spec)]),
      ]),
    // Nothing of the app's own is left wrapped: unpatching undoes it all.
    switched: () => {},
  });
}

function wrapCreate(original: Create, spec: SdkCreateSpec, observers: Observers): Create {
  return function create(this: unknown, body: Json, options?: Json): unknown {
    const call = safely(
      `${spec.provider} create`,
      () => {
        // Called by a helper that started the call already: take it over (once).
        const helper = context.active().getValue(HELPER_CALL) as HelperCall | undefined;
        const started = helper?.call;
        if (helper !== undefined) helper.call = undefined;
        return started ?? observeModelCall(startOf(spec, body, options));
      },
      undefined,
    );
    // The app's call, untouched: whatever telemetry does, this is what it gets. It runs with the
    // model call's span active, so that the SDK's own spans (and HTTP spans) are its children.
    if (call === undefined) return original.call(this, body, options);
    const requestOptions = call.requestOptions(options);
    const result = call.within(() => original.call(this, body, requestOptions)) as ApiPromise;
    return safely(`${spec.provider} result`, () => observeResult(result, call, body?.['stream'] === true, observers), result);
  };
}

/**
 * A helper (`messages.stream()`): the model call starts here, the helper runs
 * with its span active (the SDK's own span is its child) and the `create` it
 * calls at once takes the call over. The helper's `abort()` is a Stop.
 */
function wrapHelper(original: Create, spec: SdkCreateSpec): Create {
  return function helper(this: unknown, body: Json, options?: Json): unknown {
    const holder: HelperCall = {};
    const call = safely(`${spec.provider} helper`, () => observeModelCall(startOf(spec, body, options)), undefined);
    if (call === undefined) return original.call(this, body, options);
    holder.call = call;
    const requestOptions = call.requestOptions(options);
    const runner = call.within(() => context.with(context.active().setValue(HELPER_CALL, holder), () => original.call(this, body, requestOptions)));
    safely(
      `${spec.provider} helper`,
      () => {
        // The helper did not call create at once: nothing would end the call, so it ends now.
        if (holder.call !== undefined) return call.end({ complete: false });
        const signal = (runner as { controller?: AbortController } | undefined)?.controller?.signal;
        signal?.addEventListener('abort', () => call.stopped('the app aborted the stream'), { once: true });
      },
      undefined,
    );
    return runner;
  };
}
