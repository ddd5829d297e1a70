import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { safely, VERSION } from '../adapter-api.js';
import { rememberTools } from './mcp-annotations.js';
import { measuredToolsCall, requestOf, type ClientApi } from './mcp-client.js';
import { observeTransports } from './mcp-transport.js';
import { moduleDefinitions } from './module-definitions.js';

/** The `@ai-sdk/mcp` versions this instrumentation is tested with (its 1.x goes with `ai` 6, its 2.x with `ai` 7): 1.0.0, 1.0.102 and 2.0.99. */
export const AI_SDK_MCP_VERSIONS = ['>=1.0.0 <3'];
/** The `ai` versions whose own MCP client (`experimental_createMCPClient`, before @ai-sdk/mcp) this instrumentation is tested with: 5.0.0. */
export const AI_SDK_5_MCP_VERSIONS = ['>=5.0.0 <6'];
/** The `@modelcontextprotocol/sdk` versions this instrumentation is tested with. */
export const MCP_SDK_VERSIONS = ['>=1.0.0 <2'];
/** The `@modelcontextprotocol/client` (the MCP SDK's v2 client package) versions this instrumentation is tested with: 2.4.0 (as @openai/agents-core 0.20 loads it) in the suite, 2.0.0 (as @mastra/mcp pins it) by hand. */
export const MCP_CLIENT_VERSIONS = ['>=2.0.0 <3'];

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * An MCP client's request, wrapped: a `tools/call` is measured as a tool call (mcp-client.ts); a `tools/list`
 * answer tells the effect classes of the server's tools (mcp-annotations.ts). Anything else goes through as it
 * came, and so does every request whatever telemetry does.
 */
function observedRequest(original: Fn, api: ClientApi): Fn {
  return function observedMcpRequest(this: unknown, ...args: unknown[]): unknown {
    const method = safely('mcp request', () => requestOf(args, api)?.['method'], undefined);
    if (method === 'tools/call') {
      const measured = measuredToolsCall(original, this, args, api);
      if (measured !== undefined) return measured.result;
    }
    const result = Reflect.apply(original, this, args);
    if (method === 'tools/list') rememberAnswer(this, result);
    return result;
  };
}

/** The tools a `tools/list` (or `listTools`) answer lists, remembered for the client; the caller's promise untouched. */
function rememberAnswer(client: unknown, result: unknown): void {
  if (result instanceof Promise)
    result.then(
      (value: unknown) => rememberTools(client, value),
      () => {},
    );
}

/** `listTools` of the MCP SDK's Client (the v2 client lists through its cache and pages, not always `request`). */
function observedListTools(original: Fn): Fn {
  return function observedMcpListTools(this: unknown, ...args: unknown[]): unknown {
    const result = Reflect.apply(original, this, args);
    rememberAnswer(this, result);
    return result;
  };
}

/**
 * The MCP clients, measured (mcp-client.ts), version-bounded and reversible:
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
      // AI SDK 5 ships its own MCP client (`experimental_createMCPClient` from `ai`), the same client @ai-sdk/mcp took over.
      ...moduleDefinitions(
        'afterstop-mcp',
        'ai',
        AI_SDK_5_MCP_VERSIONS,
        (exports: Json) => this.patchAiSdkMcp(exports),
        (exports: Json) => this.unpatchAiSdkMcp(exports),
      ),
      // ESM only: require-in-the-middle cannot resolve the package (no `main`, an exports map), so its CommonJS
      // build is not reached.
      ...moduleDefinitions(
        'afterstop-mcp',
        '@modelcontextprotocol/sdk/client/index.js',
        MCP_SDK_VERSIONS,
        (exports: Json) => this.patchSdk(exports),
        (exports: Json) => this.unpatchSdk(exports),
      ),
      // The v2 client package (its Client has the same request), which @openai/agents-core loads whether or not the app uses MCP.
      ...moduleDefinitions(
        'afterstop-mcp',
        '@modelcontextprotocol/client',
        MCP_CLIENT_VERSIONS,
        (exports: Json) => this.patchSdk(exports),
        (exports: Json) => this.unpatchSdk(exports),
      ),
    ];
  }

  private patchSdk(exports: Json): Json {
    observeTransports(true);
    const proto = (exports['Client'] as { prototype?: Json } | undefined)?.prototype;
    if (proto !== undefined && typeof proto['request'] === 'function' && !isWrapped(proto['request'])) this._wrap(proto, 'request', (original) => observedRequest(original as Fn, 'sdk'));
    if (proto !== undefined && typeof proto['listTools'] === 'function' && !isWrapped(proto['listTools'])) this._wrap(proto, 'listTools', (original) => observedListTools(original as Fn));
    return exports;
  }

  private unpatchSdk(exports: Json): void {
    const proto = (exports['Client'] as { prototype?: Json } | undefined)?.prototype;
    for (const method of ['request', 'listTools']) if (proto !== undefined && isWrapped(proto[method])) this._unwrap(proto, method);
    // The transports already observed pass everything through from now on.
    observeTransports(false);
  }

  private patchAiSdkMcp(exports: Json): Json {
    observeTransports(true);
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
    observeTransports(false);
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
    this._wrap(proto, 'request', (original) => observedRequest(original as Fn, 'ai-sdk'));
    this.prototypes.add(proto);
  }
}
