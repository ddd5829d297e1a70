import { context } from '@opentelemetry/api';
import {
  activeRun,
  activeTool,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GUARD_MCP_CANCEL,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_CANCEL_VIA,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SERVER,
  ATTR_MCP_SESSION_ID,
  ATTR_MCP_SIDE,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_TOOL_COMMIT_UNANSWERED_MS,
  CommitFencedError,
  contextOf,
  endStoppedRun,
  endToolCall,
  fenceHolds,
  guard,
  httpCommitsDetected,
  isAbortError,
  joinOrStartRun,
  markAborted,
  MCP_METHOD_TOOLS_CALL,
  OUT_OF_SIGHT_MCP,
  safely,
  SPAN_MCP_CANCEL,
  toolSinkOf,
  type CommitSink,
  type Run,
  type ToolCall,
  type ToolEffect,
} from '../adapter-api.js';
import { rememberedEffect } from './mcp-annotations.js';
import { withTraceContext } from './mcp-trace-context.js';
import { claimingSend, forgetRequest, observeTransport, sendCancelled, sessionIdOf, transportFacts, type CancelVia, type CarriedCall } from './mcp-transport.js';

/**
 * One `tools/call` an MCP client sends, measured as a tool call of the run:
 * - inside an afterstop tool call (a framework's tool whose body calls the MCP server) it is that call; outside
 *   one, a tool call of its own, of the active run, or of a run of its own (the MCP SDK used by hand, as a model
 *   call made outside any run is one) whose Stop is the request's signal;
 * - the tool span says which server, transport, JSON-RPC id, and the effect class the server listed the tool with;
 * - the request's `params._meta` carries the tool span's W3C trace context (a copy: the caller's object is left alone);
 * - evidence: answered with a result that is not an error, a commit `mcp_result` (the server says it ran the tool),
 *   at the answer; sent and its answer lost to an abort, `request_sent` (a possible ghost: the server had it);
 * - how the cancel crossed: `notifications/cancelled` written, the request's HTTP stream closed, or nothing;
 * - the guard (its fence holding the tool): at the run's Stop, a `notifications/cancelled` for a request the client
 *   did not cancel itself; a `tools/call` made after the Stop refused, nothing written.
 */
type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** How the client takes its request: `sdk` (`request({ method, params }, schema?, options?)`), `ai-sdk` (`request({ request, resultSchema, options })`). */
export type ClientApi = 'sdk' | 'ai-sdk';

const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' ? (v as Json) : undefined);

/** The request (method and params) of a client's `request` call. */
export function requestOf(args: unknown[], api: ClientApi): Json | undefined {
  const first = obj(args[0]);
  return api === 'ai-sdk' ? obj(first?.['request']) : first;
}

/** The request's own abort signal, if the caller gave one. */
function signalOf(args: unknown[], api: ClientApi): AbortSignal | undefined {
  const candidates = api === 'ai-sdk' ? [obj(obj(args[0])?.['options'])] : [obj(args[1]), obj(args[2])];
  for (const c of candidates) if (c?.['signal'] instanceof AbortSignal) return c['signal'];
  return undefined;
}

/** `args` with the request's params replaced (copies of the objects that hold them). */
function withParams(args: unknown[], api: ClientApi, params: unknown): unknown[] {
  const copy = [...args];
  if (api === 'ai-sdk') {
    const outer = obj(args[0])!;
    copy[0] = { ...outer, request: { ...obj(outer['request']), params } };
  } else {
    copy[0] = { ...obj(args[0]), params };
  }
  return copy;
}

function transportOf(client: unknown, api: ClientApi): unknown {
  const c = obj(client);
  return api === 'ai-sdk' ? c?.['transport'] : (c?.['_transport'] ?? c?.['transport']);
}

function serverNameOf(client: unknown, api: ClientApi): string | undefined {
  const c = obj(client);
  const info = api === 'ai-sdk' ? obj(c?.['serverInfo']) : obj(typeof c?.['getServerVersion'] === 'function' ? (c['getServerVersion'] as () => unknown)() : undefined);
  const name = info?.['name'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The tool call a `tools/call` made outside any afterstop tool is: one of its own. */
interface OwnCall {
  readonly call: ToolCall;
  readonly run: Run;
  /** The run was started for this request (ended with it). */
  readonly ownRun: boolean;
}

class McpToolsCall implements CarriedCall {
  private id: unknown;
  private sentAt: number | undefined;
  private via: CancelVia | undefined;
  private settled = false;
  /** The guard's listener on the run's signal, while the request is in flight. */
  private onStop: (() => void) | undefined;

  constructor(
    private readonly sink: CommitSink,
    private readonly own: OwnCall | undefined,
    private readonly transport: unknown,
    private readonly effect: ToolEffect,
    private readonly requestSignal: AbortSignal | undefined,
    /** The guard's fence holds the call. */
    private readonly fenced: boolean,
  ) {}

  private ids(): Json {
    return { [ATTR_JSONRPC_REQUEST_ID]: String(this.id), [ATTR_MCP_METHOD_NAME]: MCP_METHOD_TOOLS_CALL };
  }

  sent(id: unknown, stream: AbortSignal | undefined): void {
    this.id = id;
    this.sentAt = performance.now();
    this.sink.annotate({ [ATTR_JSONRPC_REQUEST_ID]: String(id) });
    if (stream !== undefined && !stream.aborted) stream.addEventListener('abort', () => safely('mcp stream closed', () => this.cancelCrossed('stream_closed', false), undefined), { once: true });
    if (this.fenced && !this.sink.signal.aborted) {
      this.onStop = () => setImmediate(() => safely('mcp guard cancel', () => this.guardCancel(), undefined));
      this.sink.signal.addEventListener('abort', this.onStop, { once: true });
    }
  }

  notSent(): void {
    if (!this.settled) this.sentAt = undefined;
  }

  cancelCrossed(via: CancelVia, byGuard: boolean): void {
    if (this.settled || this.via !== undefined || this.sentAt === undefined) return;
    this.via = via;
    const attributes: Json = Object.assign(this.ids(), { [ATTR_MCP_CANCEL_VIA]: via });
    if (byGuard) attributes[ATTR_GUARD_MCP_CANCEL] = true;
    this.sink.writeMarker(SPAN_MCP_CANCEL, attributes as never);
  }

  /** The guard: the run was stopped and the client sent no cancel for this request (in flight, sent): afterstop sends it. */
  private guardCancel(): void {
    if (this.settled || this.via !== undefined || this.sentAt === undefined || !this.sink.runStopped()) return;
    sendCancelled(this.transport, this.id, 'afterstop guard: the run was stopped');
  }

  /** Run the client's request, its transport observed, its `tools/call` claimed by this call, in the call's context. */
  invoke(original: Fn, client: unknown, args: unknown[], params: unknown, api: ClientApi): unknown {
    const sent = safely('mcp trace context', () => withParams(args, api, withTraceContext(params, this.sink.spanContext)), args);
    observeTransport(this.transport);
    const request = (): unknown => claimingSend(this, () => Reflect.apply(original, client, sent));
    const ctx = this.own !== undefined ? contextOf(this.own.call) : undefined;
    let result: unknown;
    try {
      result = ctx !== undefined ? context.with(ctx, request) : request();
    } catch (error) {
      safely('mcp tools/call failed', () => this.failed(error), undefined);
      throw error;
    }
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => safely('mcp tools/call answered', () => this.answered(value), undefined),
        (error: unknown) => safely('mcp tools/call failed', () => this.failed(error), undefined),
      );
    } else {
      // Not the promise every known client returns: taken as its answer, so that the call still ends.
      safely('mcp tools/call answered', () => this.answered(result), undefined);
    }
    return result;
  }

  private settle(): void {
    this.settled = true;
    if (this.id !== undefined) forgetRequest(this.transport, this.id);
    if (this.onStop !== undefined) this.sink.signal.removeEventListener('abort', this.onStop);
    // Stopped while it was in flight: how the cancel crossed (none: nothing did).
    if (this.via !== undefined || this.sink.runStopped() || this.requestSignal?.aborted === true) this.sink.annotate({ [ATTR_MCP_CANCEL_VIA]: this.via ?? 'none' });
  }

  private answered(value: unknown): void {
    if (this.settled) return;
    this.settle();
    if (obj(value)?.['isError'] !== true && this.sentAt !== undefined && this.effect !== 'read') this.sink.commitObserved('mcp_result', this.ids() as never);
    if (this.own !== undefined) {
      endToolCall(this.own.call, { output: value });
      if (this.own.ownRun) endStoppedRun(this.own.run, undefined, false);
    }
  }

  private failed(error: unknown): void {
    if (this.settled) return;
    const aborted = this.requestSignal?.aborted === true || this.via !== undefined || isAbortError(error, this.sink.signal);
    if (aborted) {
      // The client's error for an aborted request is an abort, whatever it says (never a delivered result).
      markAborted(error);
      if (this.fenced) this.guardCancel();
    }
    const unansweredMs = this.sentAt !== undefined ? Math.round((performance.now() - this.sentAt) * 1000) / 1000 : undefined;
    this.settle();
    // Sent, its answer lost to the abort: the server had it, what it did is not known (a possible ghost).
    if (aborted && unansweredMs !== undefined && this.effect !== 'read') this.sink.commitObserved('request_sent', Object.assign(this.ids(), { [ATTR_TOOL_COMMIT_UNANSWERED_MS]: unansweredMs }) as never);
    if (this.own !== undefined) {
      endToolCall(this.own.call, aborted ? { error, result: 'cancelled' } : { error });
      if (this.own.ownRun) endStoppedRun(this.own.run, error, aborted);
    }
  }
}

/** Refused by the guard: made after its run's Stop. */
function refuse(sink: CommitSink, own: OwnCall | undefined, name: string, server: string | undefined): Promise<never> {
  sink.commitPrevented({ [ATTR_MCP_METHOD_NAME]: MCP_METHOD_TOOLS_CALL, [ATTR_GEN_AI_TOOL_NAME]: name, ...(server !== undefined ? { [ATTR_MCP_SERVER]: server } : {}) });
  const error = new CommitFencedError(MCP_METHOD_TOOLS_CALL, server, sink.runAbortReason());
  if (own !== undefined) {
    endToolCall(own.call, { error, result: 'cancelled' });
    if (own.ownRun) endStoppedRun(own.run, error, true);
  }
  const refused = Promise.reject(error);
  refused.catch(() => {});
  return refused;
}

/**
 * A client's `tools/call`, measured; undefined when telemetry could not start it (the request then goes as
 * without afterstop). Never throws.
 */
export function measuredToolsCall(original: Fn, client: unknown, args: unknown[], api: ClientApi): { result: unknown } | undefined {
  const start = safely(
    'mcp tools/call',
    () => {
      const request = requestOf(args, api)!;
      const params = request['params'];
      const name = String(obj(params)?.['name'] ?? 'unknown');
      const requestSignal = signalOf(args, api);
      const transport = transportOf(client, api);
      const facts = transportFacts(transport);
      const remembered = rememberedEffect(client, name);
      let sink = activeTool();
      let own: OwnCall | undefined;
      if (sink === undefined) {
        const active = activeRun();
        // In a run, a tool body is known by the context only while the commit detector or the guard is on: else
        // this request may be inside a framework's tool, and a call of its own would count that call twice.
        if (active !== undefined && !httpCommitsDetected() && guard().fence === undefined && guard().keys === undefined) return undefined;
        const { run, own: ownRun } = active !== undefined ? { run: active, own: false } : joinOrStartRun({ framework: 'mcp', signal: requestSignal });
        const call = run.startTool({ name, arguments: obj(params)?.['arguments'], detectCommits: httpCommitsDetected(), ...(remembered !== undefined ? { effect: remembered } : {}) });
        sink = toolSinkOf(call);
        if (sink === undefined) {
          if (ownRun) run.end();
          return undefined;
        }
        own = { call, run, ownRun };
      } else if (remembered !== undefined) {
        sink.learnEffect(remembered);
      }
      const server = serverNameOf(client, api) ?? facts.server;
      sink.effectOutOfSight(OUT_OF_SIGHT_MCP);
      const attributes: Json = { [ATTR_MCP_METHOD_NAME]: MCP_METHOD_TOOLS_CALL, [ATTR_MCP_SIDE]: 'client' };
      if (server !== undefined) attributes[ATTR_MCP_SERVER] = server;
      if (facts.network !== undefined) attributes[ATTR_NETWORK_TRANSPORT] = facts.network;
      if (facts.address !== undefined) attributes[ATTR_SERVER_ADDRESS] = facts.address;
      if (facts.port !== undefined) attributes[ATTR_SERVER_PORT] = facts.port;
      const session = sessionIdOf(transport);
      if (session !== undefined) attributes[ATTR_MCP_SESSION_ID] = session;
      sink.annotate(attributes as never);
      // The fence holds the MCP server's host (HTTP) like any host it names; a stdio server only when it names none.
      const fenced = guard().fence !== undefined && fenceHolds(sink, facts.network === 'tcp' ? facts.address : undefined);
      if (fenced && sink.runStopped()) return { refused: refuse(sink, own, name, server) };
      return { call: new McpToolsCall(sink, own, transport, remembered ?? 'unknown', requestSignal, fenced), params };
    },
    undefined,
  );
  if (start === undefined) return undefined;
  if ('refused' in start) return { result: start.refused };
  return { result: start.call.invoke(original, client, args, start.params, api) };
}
