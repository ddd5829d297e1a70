import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { moduleDefinitions } from './module-definitions.js';
import { VERSION } from '../adapter-api.js';

type Json = Record<string, unknown>;

/** A method to patch: on this object, under this name, with this wrapper of the original. */
export type PatchTarget = [object: Json, method: string, wrap: (original: unknown) => unknown];

/**
 * A framework's patch, declared: the package and the versions it supports,
 * the methods it wraps (found in the package's exports), and a switch for the
 * wrappers it leaves in the app's own objects (graph nodes, tools, workflows
 * already built), which pass straight through while it is off.
 */
export interface FrameworkSpec {
  /** `afterstop-<framework>`. */
  name: string;
  module: string;
  versions: string[];
  /** When `module` is a package's subpath export: the CommonJS file it maps to (see moduleDefinitions). */
  commonJsFile?: string;
  targets: (exports: Json) => PatchTarget[];
  switched: (on: boolean) => void;
}

export interface FrameworkInstrumentationClass {
  new (config?: InstrumentationConfig): InstrumentationBase;
  readonly module: string;
}

/**
 * The instrumentation class of a spec (patching is reversible: disable()
 * unwraps every target). A class per spec: the base constructor calls init()
 * before a subclass could store the spec. The SDK clients' patch
 * (sdk-instrumentation.ts) and the frameworks' are all made here.
 */
export function frameworkInstrumentation(spec: FrameworkSpec): FrameworkInstrumentationClass {
  return class extends InstrumentationBase {
    static readonly module = spec.module;

    constructor(config: InstrumentationConfig = {}) {
      super(spec.name, VERSION, config);
    }

    override enable(): void {
      spec.switched(true);
      super.enable();
    }

    override disable(): void {
      spec.switched(false);
      super.disable();
    }

    protected init(): InstrumentationNodeModuleDefinition[] {
      const patch = (exports: Json): Json => {
        for (const [object, method, wrap] of spec.targets(exports)) if (!isWrapped(object[method])) this._wrap(object, method, wrap);
        return exports;
      };
      const unpatch = (exports: Json): void => {
        for (const [object, method] of spec.targets(exports)) if (isWrapped(object[method])) this._unwrap(object, method);
      };
      return moduleDefinitions(spec.name, spec.module, spec.versions, patch, unpatch, spec.commonJsFile);
    }
  };
}
