import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { activeTool, OUT_OF_SIGHT_MCP, safely, VERSION } from '../adapter-api.js';
import { moduleDefinitions } from './module-definitions.js';
import { announceUse } from './watch-uninstrumented.js';

/** The `@ai-sdk/mcp` versions this marker is tested with (its 1.x goes with `ai` 6). */
export const AI_SDK_MCP_VERSIONS = ['>=1.0.0 <2'];
/** The `@modelcontextprotocol/sdk` versions this marker is tested with. */
export const MCP_SDK_VERSIONS = ['>=1.0.0 <2'];
/** The `@modelcontextprotocol/client` (the MCP SDK's v2 client package) versions this marker is tested with (2.4.0, as @openai/agents-core 0.20 loads it). */
export const MCP_CLIENT_VERSIONS = ['>=2.0.0 <3'];

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The method of an MCP request (`{ method: 'tools/call', … }` as the SDK's
 * `request(request, …)` takes it, or `{ request: { method } }` as
 * `@ai-sdk/mcp`'s client takes it).
 */
function methodOf(args: unknown[]): unknown {
  const first = args[0] as Json | undefined;
  if (first === null || typeof first !== 'object') return undefined;
  const inner = first['request'] as Json | undefined;
  return inner !== null && typeof inner === 'object' ? inner['method'] : first['method'];
}

/**
 * An MCP client's request, wrapped: a `tools/call` sent inside a tool's body
 * hands that tool's effect to the MCP server, another process (over stdio) or
 * a service whose work afterstop does not watch: the tool span says so
 * (`afterstop.tool.out_of_sight = mcp`). Nothing else changes: the request
 * goes through as it came, whatever telemetry does.
 */
function markedRequest(original: Fn, module: string): Fn {
  let announced = false;
  return function observedMcpRequest(this: unknown, ...args: unknown[]): unknown {
    safely(
      'mcp tools/call',
      () => {
        // An MCP client in use: named as afterstop does not see its server's effects, also when a framework loaded it
        // (once: not on every request).
        if (!announced) {
          announced = true;
          announceUse(module);
        }
        if (methodOf(args) === 'tools/call') activeTool()?.effectOutOfSight(OUT_OF_SIGHT_MCP);
      },
      undefined,
    );
    return original.apply(this, args);
  };
}

/**
 * A light, version-bounded, reversible marker on the MCP clients a tool body
 * calls (the full measurement across the tool boundary is a later issue):
 * - `@ai-sdk/mcp`: `createMCPClient` resolves to a client whose class is not
 *   exported; its prototype's `request` is wrapped the first time one is made;
 * - `@modelcontextprotocol/sdk`: `Client.prototype.request` (which `callTool`
 *   uses), from `@modelcontextprotocol/sdk/client/index.js` (ESM; its CommonJS
 *   build is not reached: require-in-the-middle cannot resolve the package).
 */
export class McpInstrumentation extends InstrumentationBase {
  static readonly module: readonly string[] = ['@ai-sdk/mcp', '@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/client'];
  /** Client prototypes of `@ai-sdk/mcp` whose `request` was wrapped (undone on disable). */
  private readonly prototypes = new Set<Json>();
  /** CommonJS copies of `@ai-sdk/mcp`'s exports handed out (its getters are read-only), by the exports they copy. */
  private readonly copies = new WeakMap<object, Json>();

  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-mcp', VERSION, config);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return [
      ...moduleDefinitions(
        'afterstop-mcp',
        '@ai-sdk/mcp',
        AI_SDK_MCP_VERSIONS,
        (exports: Json) => this.patchAiSdkMcp(exports),
        (exports: Json) => this.unpatchAiSdkMcp(exports),
      ),
      // ESM only: require-in-the-middle cannot resolve the package (no `main`, an exports map), so its CommonJS
      // build is not reached (a later issue measures MCP fully).
      ...moduleDefinitions(
        'afterstop-mcp',
        '@modelcontextprotocol/sdk/client/index.js',
        MCP_SDK_VERSIONS,
        (exports: Json) => this.patchSdk(exports, '@modelcontextprotocol/sdk'),
        (exports: Json) => this.unpatchSdk(exports),
      ),
      // The v2 client package (its Client has the same request), which @openai/agents-core loads whether or not the app uses MCP.
      ...moduleDefinitions(
        'afterstop-mcp',
        '@modelcontextprotocol/client',
        MCP_CLIENT_VERSIONS,
        (exports: Json) => this.patchSdk(exports, '@modelcontextprotocol/client'),
        (exports: Json) => this.unpatchSdk(exports),
      ),
    ];
  }

  private patchSdk(exports: Json, module: string): Json {
    const proto = (exports['Client'] as { prototype?: Json } | undefined)?.prototype;
    if (proto !== undefined && typeof proto['request'] === 'function' && !isWrapped(proto['request'])) this._wrap(proto, 'request', (original) => markedRequest(original as Fn, module));
    return exports;
  }

  private unpatchSdk(exports: Json): void {
    const proto = (exports['Client'] as { prototype?: Json } | undefined)?.prototype;
    if (proto !== undefined && isWrapped(proto['request'])) this._unwrap(proto, 'request');
  }

  private patchAiSdkMcp(exports: Json): Json {
    const names = ['createMCPClient', 'experimental_createMCPClient'].filter((n) => typeof exports[n] === 'function');
    const inPlace = names.every((n) => Object.getOwnPropertyDescriptor(exports, n)?.configurable !== false);
    if (inPlace) {
      for (const n of names) if (!isWrapped(exports[n])) this._wrap(exports, n, (original) => this.wrapCreate(original as Fn));
      return exports;
    }
    // The CommonJS build's exports are read-only getters: the same getters, made configurable, on a copy.
    const descriptors = Object.getOwnPropertyDescriptors(exports);
    for (const d of Object.values(descriptors)) d.configurable = true;
    const copy = Object.defineProperties({}, descriptors) as Json;
    for (const n of names) Object.defineProperty(copy, n, { value: this.wrapCreate(exports[n] as Fn), enumerable: true, writable: true, configurable: true });
    this.copies.set(exports, copy);
    return copy;
  }

  private unpatchAiSdkMcp(exports: Json): void {
    for (const proto of this.prototypes) if (isWrapped(proto['request'])) this._unwrap(proto, 'request');
    this.prototypes.clear();
    const copy = this.copies.get(exports);
    for (const n of ['createMCPClient', 'experimental_createMCPClient']) {
      if (copy !== undefined) copy[n] = exports[n];
      else if (isWrapped(exports[n])) this._unwrap(exports, n);
    }
  }

  /** `createMCPClient`, whose client's class gets its `request` wrapped once it is known. */
  private wrapCreate(original: Fn): Fn {
    const self = this;
    return function observedCreateMCPClient(this: unknown, ...args: unknown[]): unknown {
      const created = original.apply(this, args);
      if (created instanceof Promise) {
        // The app gets the SDK's own promise: a rejection it leaves unhandled stays unhandled.
        created.then(
          (client: unknown) => safely('mcp client', () => self.patchClient(client), undefined),
          () => {},
        );
      }
      return created;
    };
  }

  private patchClient(client: unknown): void {
    if (client === null || typeof client !== 'object') return;
    const proto = Object.getPrototypeOf(client) as Json | null;
    if (proto === null || proto === Object.prototype || typeof proto['request'] !== 'function' || isWrapped(proto['request'])) return;
    this._wrap(proto, 'request', (original) => markedRequest(original as Fn, '@ai-sdk/mcp'));
    this.prototypes.add(proto);
  }
}
