import { InstrumentationBase, isWrapped, type InstrumentationConfig, type InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { context } from '@opentelemetry/api';
import { effectOfToolAnnotations, mcpServerToolThrew, NETWORK_TRANSPORT_PIPE, NETWORK_TRANSPORT_TCP, observeCall, safely, startMcpServerCall, VERSION, type McpCancelVia } from '../adapter-api.js';
import { moduleDefinitions } from './module-definitions.js';
import { activeStream, contextWithStream, ResponseStream } from './mcp-server-stream.js';

/** The `@modelcontextprotocol/sdk` versions whose servers (`Server`, `McpServer`) this patch is tested with (1.0.0 and 1.32.2). */
export const MCP_SERVER_SDK_VERSIONS = ['>=1.0.0 <2'];

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;
type Handler = (request: unknown, extra: unknown) => unknown;

/** What the patch reads of the SDK's Protocol (a `Server`): its handler maps and transport (1.0.0 to 1.32). */
interface Protocol {
  _requestHandlers?: Map<string, Handler>;
  _notificationHandlers?: Map<string, (notification: unknown) => unknown>;
  transport?: unknown;
}

/** The handler entries this patch made (a map entry is wrapped once). */
const wrappedEntries = new WeakSet<object>();
/** The `McpServer` whose tools a `Server` serves (their annotations give the effect class). */
const owners = new WeakMap<object, Json>();
/** Annotations of the tools a low-level `Server` listed (its `tools/list` answers), by name. */
const listed = new WeakMap<object, Map<string, unknown>>();
/** The `notifications/cancelled` being handled, while the SDK aborts its request's controller (synchronously). */
let notifying: { protocol: object; requestId: unknown } | undefined;
/** The patch is on (wrappers left in the app's objects pass straight through while it is off). */
let on = false;

const jsonOf = (x: unknown): Json | undefined => (x !== null && typeof x === 'object' ? (x as Json) : undefined);

/** The prototype in `object`'s chain that is the SDK's Protocol (owns `setRequestHandler` and `connect`). */
function protocolPrototype(object: unknown): Json | undefined {
  for (let p = jsonOf(object); p !== undefined && p !== Object.prototype; p = jsonOf(Object.getPrototypeOf(p))) {
    if (Object.hasOwn(p, '_onrequest') && Object.hasOwn(p, 'setRequestHandler') && Object.hasOwn(p, 'connect')) return p;
  }
  return undefined;
}

/** `pipe` for the stdio transport, `tcp` for the HTTP ones (Streamable HTTP, SSE); undefined for others (in-memory). */
function transportOf(transport: unknown): string | undefined {
  const name = (jsonOf(transport)?.['constructor'] as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string') return undefined;
  if (/stdio/i.test(name)) return NETWORK_TRANSPORT_PIPE;
  if (/http|sse/i.test(name)) return NETWORK_TRANSPORT_TCP;
  return undefined;
}

/** The annotations of tool `name` of `protocol`: its McpServer's registration, else what its `tools/list` answered. */
function annotationsOf(protocol: object, name: string): unknown {
  const registered = jsonOf(jsonOf(owners.get(protocol)?.['_registeredTools'])?.[name]);
  if (registered !== undefined) return registered['annotations'];
  return listed.get(protocol)?.get(name);
}

/** Remember the annotations a `tools/list` answer gives (bounded: the tools of one server). */
function rememberListed(protocol: object, result: unknown): void {
  const tools = jsonOf(result)?.['tools'];
  if (!Array.isArray(tools)) return;
  const byName = new Map<string, unknown>();
  for (const tool of tools.slice(0, 1000)) {
    const t = jsonOf(tool);
    if (typeof t?.['name'] === 'string') byName.set(t['name'], t['annotations']);
  }
  listed.set(protocol, byName);
}

/**
 * The SDK's `tools/call` entry of a server, wrapped: the handler runs as the server side of a tool call
 * (mcp-server-call.ts), in its context (its HTTP requests are its commits), with a signal that says when
 * the handler reads it; the cancel it gets (the SDK's abort of `extra.signal` on `notifications/cancelled`
 * or on the connection's close; the client closing the POST's response stream, which the SDK does not
 * pass on) is marked at the instant it comes.
 */
function observedToolsCall(protocol: Protocol & object, original: Handler): Handler {
  return function observedMcpToolsCall(this: unknown, request: unknown, extra: unknown): unknown {
    if (!on) return original.call(this, request, extra);
    const req = jsonOf(request);
    const params = jsonOf(req?.['params']);
    const ex = jsonOf(extra);
    const name = params?.['name'];
    const requestId = req?.['id'];
    const call = safely(
      'mcp server tools/call',
      () =>
        typeof name === 'string' && (typeof requestId === 'string' || typeof requestId === 'number')
          ? startMcpServerCall(
              {
                toolName: name,
                requestId,
                meta: params?.['_meta'] ?? ex?.['_meta'],
                effect: effectOfToolAnnotations(annotationsOf(protocol, name)),
                transport: transportOf(protocol.transport),
                sessionId: typeof ex?.['sessionId'] === 'string' ? ex['sessionId'] : undefined,
              },
              params?.['arguments'],
            )
          : undefined,
      undefined,
    );
    if (call === undefined) return original.call(this, request, extra);
    const handed = safely(
      'mcp server signal',
      () => {
        const sdkSignal = ex?.['signal'];
        if (!(sdkSignal instanceof AbortSignal)) return extra;
        const via = (): McpCancelVia => (notifying !== undefined && notifying.protocol === protocol && notifying.requestId === requestId ? 'notification' : 'stream_closed');
        return Object.assign({}, ex, { signal: call.watchSignal(sdkSignal, via) });
      },
      extra,
    );
    // The client closing the POST's response stream (Streamable HTTP): the SDK does not abort the handler; it is marked.
    const unsubscribe = safely('mcp server stream', () => activeStream()?.onClosed(() => call.cancelReceived('stream_closed')), undefined);
    return observeCall(
      'mcp server tools/call end',
      call.context,
      () => original.call(this, request, handed),
      (outcome) => {
        unsubscribe?.();
        call.end(outcome);
      },
    );
  };
}

/** The SDK's `tools/list` entry of a server, wrapped to learn its tools' annotations. */
function observedToolsList(protocol: object, original: Handler): Handler {
  return function observedMcpToolsList(this: unknown, request: unknown, extra: unknown): unknown {
    const listing = original.call(this, request, extra);
    if (on && listing instanceof Promise)
      listing.then(
        (result: unknown) => safely('mcp server tools/list', () => rememberListed(protocol, result), undefined),
        () => {},
      );
    return listing;
  };
}

/** The SDK's `notifications/cancelled` entry: while it runs (it aborts the request's controller synchronously), the abort is the notification's. */
function observedCancelled(protocol: object, original: (notification: unknown) => unknown): (notification: unknown) => unknown {
  return function observedMcpCancelled(this: unknown, notification: unknown): unknown {
    const previous = notifying;
    notifying = { protocol, requestId: jsonOf(jsonOf(notification)?.['params'])?.['requestId'] };
    try {
      return original.call(this, notification);
    } finally {
      notifying = previous;
    }
  };
}

/** Wrap the server's `tools/call`, `tools/list` and `notifications/cancelled` entries that are not yet. */
function wrapEntries(protocol: unknown): void {
  const p = jsonOf(protocol) as (Protocol & Json) | undefined;
  if (p === undefined) return;
  const requests = p._requestHandlers;
  if (requests instanceof Map) {
    const call = requests.get('tools/call');
    if (typeof call === 'function' && !wrappedEntries.has(call)) {
      const wrapped = observedToolsCall(p, call);
      wrappedEntries.add(wrapped);
      requests.set('tools/call', wrapped);
    }
    const list = requests.get('tools/list');
    if (typeof list === 'function' && !wrappedEntries.has(list)) {
      const wrapped = observedToolsList(p, list);
      wrappedEntries.add(wrapped);
      requests.set('tools/list', wrapped);
    }
  }
  const notifications = p._notificationHandlers;
  if (notifications instanceof Map) {
    const cancelled = notifications.get('notifications/cancelled');
    if (typeof cancelled === 'function' && !wrappedEntries.has(cancelled)) {
      const wrapped = observedCancelled(p, cancelled);
      wrappedEntries.add(wrapped);
      notifications.set('notifications/cancelled', wrapped);
    }
  }
}

/** Protocol's `setRequestHandler` and `connect`: the entries they leave are wrapped (a client has no `tools/call` entry: untouched). */
function afterOriginal(original: Fn, label: string): Fn {
  return function observedProtocolMethod(this: unknown, ...args: unknown[]): unknown {
    const result = original.apply(this, args);
    if (on) safely(label, () => wrapEntries(this), undefined);
    return result;
  };
}

/**
 * The server side of MCP, for servers built on `@modelcontextprotocol/sdk` 1.x (version-bounded,
 * reversible): each `tools/call` a `Server` or `McpServer` handles is a tool call (mcp-server-call.ts).
 * - `@modelcontextprotocol/sdk/server/index.js` (`Server`): its Protocol prototype's `setRequestHandler`
 *   and `connect` wrap the `tools/call` entry the SDK keeps (the raw request: its id, its `_meta`);
 * - `@modelcontextprotocol/sdk/server/mcp.js` (`McpServer`, which an app may import alone): its `connect`
 *   patches its `Server`'s Protocol prototype and wraps the entries already made;
 * - `@modelcontextprotocol/sdk/server/streamableHttp.js`: `handleRequest(req, res)` carries the response
 *   in the context, so that a handler knows when the client closes the stream.
 * ESM only, as the client marker (auto/mcp.ts): require-in-the-middle cannot resolve the package, so the
 * CommonJS build (`require('@modelcontextprotocol/sdk/server/mcp.js')`) is not reached. The v2 server
 * package (`@modelcontextprotocol/server`) is not patched.
 */
export class McpServerInstrumentation extends InstrumentationBase {
  static readonly module: readonly string[] = ['@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/streamableHttp.js'];
  /** Protocol prototypes patched (undone on disable). */
  private readonly protocols = new Set<Json>();

  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-mcp-server', VERSION, config);
  }

  override enable(): void {
    on = true;
    super.enable();
  }

  override disable(): void {
    on = false;
    super.disable();
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return [
      ...moduleDefinitions(
        'afterstop-mcp-server',
        '@modelcontextprotocol/sdk/server/index.js',
        MCP_SERVER_SDK_VERSIONS,
        (exports: Json) => {
          this.patchProtocol((exports['Server'] as { prototype?: unknown } | undefined)?.prototype);
          return exports;
        },
        () => this.unpatchProtocols(),
      ),
      ...moduleDefinitions(
        'afterstop-mcp-server',
        '@modelcontextprotocol/sdk/server/mcp.js',
        MCP_SERVER_SDK_VERSIONS,
        (exports: Json) => this.patchMcpServer(exports),
        (exports: Json) => {
          const proto = (exports['McpServer'] as { prototype?: Json } | undefined)?.prototype;
          for (const method of ['connect', 'executeToolHandler']) if (proto !== undefined && isWrapped(proto[method])) this._unwrap(proto, method);
          this.unpatchProtocols();
        },
      ),
      ...moduleDefinitions(
        'afterstop-mcp-server',
        '@modelcontextprotocol/sdk/server/streamableHttp.js',
        MCP_SERVER_SDK_VERSIONS,
        (exports: Json) => this.patchStreamableHttp(exports),
        (exports: Json) => {
          const proto = (exports['StreamableHTTPServerTransport'] as { prototype?: Json } | undefined)?.prototype;
          if (proto !== undefined && isWrapped(proto['handleRequest'])) this._unwrap(proto, 'handleRequest');
        },
      ),
    ];
  }

  private patchProtocol(object: unknown): void {
    const proto = protocolPrototype(object);
    if (proto === undefined || this.protocols.has(proto)) return;
    for (const method of ['setRequestHandler', 'connect']) {
      if (typeof proto[method] === 'function' && !isWrapped(proto[method])) this._wrap(proto, method, (original) => afterOriginal(original as Fn, `mcp server ${method}`));
    }
    this.protocols.add(proto);
  }

  private unpatchProtocols(): void {
    for (const proto of this.protocols) for (const method of ['setRequestHandler', 'connect']) if (isWrapped(proto[method])) this._unwrap(proto, method);
    this.protocols.clear();
  }

  private patchMcpServer(exports: Json): Json {
    const proto = (exports['McpServer'] as { prototype?: Json } | undefined)?.prototype;
    if (proto === undefined || typeof proto['connect'] !== 'function' || isWrapped(proto['connect'])) return exports;
    // McpServer turns what a tool's callback throws into an `isError` result: the span is told what it was (1.x versions with `executeToolHandler`).
    if (typeof proto['executeToolHandler'] === 'function' && !isWrapped(proto['executeToolHandler'])) {
      this._wrap(proto, 'executeToolHandler', (original) => {
        return function observedExecuteToolHandler(this: unknown, ...args: unknown[]): unknown {
          const running = (original as Fn).apply(this, args);
          if (on && running instanceof Promise) running.catch((error: unknown) => safely('mcp server tool error', () => mcpServerToolThrew(error), undefined));
          return running;
        };
      });
    }
    const self = this;
    this._wrap(proto, 'connect', (original) => {
      return function observedMcpServerConnect(this: unknown, ...args: unknown[]): unknown {
        safely(
          'mcp server connect',
          () => {
            if (!on) return;
            const server = jsonOf(this)?.['server'];
            if (jsonOf(server) === undefined) return;
            owners.set(server as object, this as Json);
            self.patchProtocol(server);
            wrapEntries(server);
          },
          undefined,
        );
        return (original as Fn).apply(this, args);
      };
    });
    return exports;
  }

  private patchStreamableHttp(exports: Json): Json {
    const proto = (exports['StreamableHTTPServerTransport'] as { prototype?: Json } | undefined)?.prototype;
    if (proto === undefined || typeof proto['handleRequest'] !== 'function' || isWrapped(proto['handleRequest'])) return exports;
    this._wrap(proto, 'handleRequest', (original) => {
      return function observedHandleRequest(this: unknown, ...args: unknown[]): unknown {
        const ctx = on ? safely('mcp server http request', () => contextWithStream(context.active(), new ResponseStream(args[1])), undefined) : undefined;
        return ctx === undefined ? (original as Fn).apply(this, args) : context.with(ctx, () => (original as Fn).apply(this, args));
      };
    });
    return exports;
  }
}
