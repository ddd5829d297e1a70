import { safely } from '../safe.js';
import { frameworkInstrumentation, type FrameworkInstrumentationClass, type PatchTarget } from './framework-instrumentation.js';
import { observeModelCall } from './model-observer.js';
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
}

type Create = (this: unknown, body: Json, options?: Json) => unknown;

/** The instrumentation class for one spec (see framework-instrumentation.ts). */
export function sdkCreateInstrumentation(spec: SdkCreateSpec): FrameworkInstrumentationClass {
  /** The prototypes to patch, as the package exports them (CommonJS or ESM), each with its observers. */
  const targets = (exports: Json): [Json, Observers][] => {
    const client = (exports[spec.client] ?? (exports['default'] as Json | undefined)?.[spec.client] ?? exports['default']) as Json | undefined;
    return spec.resources.flatMap((r): [Json, Observers][] => {
      const proto = r.resource(client)?.prototype;
      return proto ? [[proto, r.observers]] : [];
    });
  };
  return frameworkInstrumentation({
    name: spec.name,
    module: spec.module,
    versions: spec.versions,
    targets: (exports) => targets(exports).map(([proto, observers]): PatchTarget => [proto, 'create', (original) => wrapCreate(original as Create, spec, observers)]),
    // Nothing of the app's own is left wrapped: unpatching undoes it all.
    switched: () => {},
  });
}

function wrapCreate(original: Create, spec: SdkCreateSpec, observers: Observers): Create {
  return function create(this: unknown, body: Json, options?: Json): unknown {
    const call = safely(
      `${spec.provider} create`,
      () => observeModelCall({
        provider: spec.provider,
        framework: spec.framework,
        model: typeof body?.['model'] === 'string' ? body['model'] : 'unknown',
        signal: options?.['signal'] instanceof AbortSignal ? options['signal'] : undefined,
        // Chat Completions and Messages send `messages`, Responses `input`; Messages a `system` prompt,
        // Responses `instructions` (recorded only when content capture is on).
        inputMessages: body?.['messages'] ?? body?.['input'],
        systemInstructions: body?.['system'] ?? body?.['instructions'],
      }),
      undefined,
    );
    // The app's call, untouched: whatever telemetry does, this is what it gets. It runs with the
    // model call's span active, so that the SDK's own spans (and HTTP spans) are its children.
    if (call === undefined) return original.call(this, body, options);
    const result = call.within(() => original.call(this, body, options)) as ApiPromise;
    return safely(`${spec.provider} result`, () => observeResult(result, call, body?.['stream'] === true, observers), result);
  };
}
