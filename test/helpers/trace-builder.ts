/**
 * A small builder of OTLP/JSON trace files (one ExportTraceServiceRequest per
 * line, like test/fixtures/golden) so that query tests state scenarios in
 * milliseconds relative to a base time, plus helpers that run the queries of
 * queries/ over them in a :memory: store.
 *
 *   const t = traces();
 *   const r = t.run({ conversation: 'c1', startMs: 0, endMs: 900, outcome: 'cancelled' });
 *   r.cancelRequest(100); r.ack(150);
 *   r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 400, result: 'late' });
 *   r.commit({ callId: 'c1', atMs: 300 });
 *   const s = await analyzeTraces(t);           // store with the prepare chain run
 *   const rows = await s.rows('cancel-latency'); // bigint → number
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { prepareReportSpans } from '../../analyzer/report.js';
import { PREPARE, reportParams, windowParams } from '../../analyzer/report-assembly.js';
import { resolvePrices } from '../../analyzer/resolve-prices.js';
import { ingest } from '../../analyzer/ingest/ingest.js';
import { query } from '../../analyzer/queries.js';
import { Store } from '../../analyzer/store.js';

/** The base time (ms 0 of every scenario), in ns since the epoch. */
export const BASE_NS = 1_790_000_000_000_000_000n;
/** Milliseconds after the base, as ns since the epoch. */
export const ns = (ms: number): bigint => BASE_NS + BigInt(Math.round(ms * 1e6));
/** ns since the epoch (bigint, or a number/string read back) as ms after the base. */
export const relMs = (v: unknown): number => Number(BigInt(String(v)) - BASE_NS) / 1e6;

export type AttrValue = string | number | boolean | string[] | { double: number };
/** Attributes as pairs (a key may repeat) or as an object. */
export type Attrs = [string, AttrValue][] | Record<string, AttrValue>;
export type Status = 'ok' | 'error' | { code: 'ok' | 'error'; message?: string };
export interface SpanOptions {
  status?: Status;
  /** exception events: { type, message } (at the span's end) */
  exceptions?: { type?: string; message?: string }[];
  attrs?: Attrs;
}

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attrs: [string, AttrValue][];
  status?: Status;
  exceptions?: { type?: string; message?: string }[];
  /** The instrumentation scope's name (default afterstop). */
  scope?: string;
}

function anyValue(v: AttrValue): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  return { doubleValue: v.double };
}
/** The attributes that have a value. */
const defined = (o: Record<string, AttrValue | undefined>): [string, AttrValue][] => Object.entries(o).filter((e): e is [string, AttrValue] => e[1] !== undefined);
const pairs = (a: Attrs | undefined): [string, AttrValue][] => (a === undefined ? [] : Array.isArray(a) ? a : Object.entries(a));
const kvs = (a: [string, AttrValue][]) => a.map(([key, value]) => ({ key, value: anyValue(value) }));
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

export interface RunOptions {
  conversation?: string;
  agent?: string;
  framework?: string;
  service?: string;
  startMs: number;
  endMs?: number;
  outcome?: 'completed' | 'cancelled' | 'failed';
  /** false: the run span is not exported (an unended run: only its markers and children). */
  exported?: boolean;
  /** Share a trace with another run. */
  traceId?: string;
  /** The run span's parent (default: none, a root). */
  parent?: string;
  /** false: no common attributes on any span of the run (a foreign trace). */
  stamp?: boolean;
  /** The run span's name (default `invoke_agent {agent}`; a foreign root: e.g. `ai.streamText`). */
  name?: string;
  /** Extra attributes of the run span. */
  attrs?: Attrs;
  status?: Status;
}

export class Run {
  readonly spanId: string;
  readonly traceId: string;
  private readonly tools = new Map<string, { spanId: string; name: string; effect?: string; idempotencyKey?: string }>();

  constructor(
    private readonly t: Traces,
    readonly options: RunOptions,
  ) {
    this.traceId = options.traceId ?? t.newTraceId();
    this.spanId = t.newSpanId();
    if (options.exported === false) return;
    const agentSpan = options.name === undefined || options.name.startsWith('invoke_agent');
    t.add(options.service, {
      traceId: this.traceId,
      spanId: this.spanId,
      ...(options.parent ? { parentSpanId: options.parent } : {}),
      name: options.name ?? `invoke_agent ${options.agent ?? 'agent'}`,
      kind: 1,
      startNs: ns(options.startMs),
      endNs: ns(options.endMs ?? options.startMs),
      attrs: [...defined({ 'gen_ai.operation.name': agentSpan ? 'invoke_agent' : undefined }), ...this.common(true), ...defined({ 'afterstop.run.outcome': options.outcome }), ...pairs(options.attrs)],
      ...(options.status ? { status: options.status } : {}),
    });
  }

  /** The common attributes (SEMCONV.md); afterstop.run.id on every span but the run span. */
  private common(runSpan = false): [string, AttrValue][] {
    const o = this.options;
    if (o.stamp === false) return [];
    return defined({
      'afterstop.run.id': runSpan ? undefined : this.spanId,
      'gen_ai.conversation.id': o.conversation,
      'gen_ai.agent.name': o.agent ?? 'agent',
      'afterstop.framework': o.framework ?? 'manual',
    });
  }

  /** Any span of the run; parent defaults to the run span ('missing': a parent never exported). */
  span(o: { name: string; startMs: number; endMs?: number; parent?: string; kind?: number; spanId?: string; scope?: string } & SpanOptions): string {
    const spanId = o.spanId ?? this.t.newSpanId();
    this.t.add(this.options.service, {
      traceId: this.traceId,
      spanId,
      parentSpanId: o.parent === 'missing' ? this.t.newSpanId() : (o.parent ?? this.spanId),
      name: o.name,
      kind: o.kind ?? 1,
      startNs: ns(o.startMs),
      endNs: ns(o.endMs ?? o.startMs),
      attrs: [...this.common(), ...pairs(o.attrs)],
      ...(o.status ? { status: o.status } : {}),
      ...(o.exceptions ? { exceptions: o.exceptions } : {}),
      ...(o.scope ? { scope: o.scope } : {}),
    });
    return spanId;
  }

  /** An instant marker span (start = end) under the run span (or `parent`). */
  marker(name: string, atMs: number, attrs: Attrs = [], parent?: string): string {
    return this.span({ name, startMs: atMs, attrs, ...(parent ? { parent } : {}) });
  }

  cancelRequest(atMs: number, id = 'k', source = 'user'): string {
    return this.marker('afterstop.cancel.request', atMs, { 'afterstop.cancel.id': id, 'afterstop.cancel.source': source });
  }
  ack(atMs: number, id = 'k'): string {
    return this.marker('afterstop.cancel.ack', atMs, { 'afterstop.cancel.id': id, 'afterstop.cancel.outcome': 'stopped' });
  }
  settle(atMs: number, unsettled = 0, id = 'k'): string {
    return this.marker('afterstop.cancel.settle', atMs, { 'afterstop.cancel.id': id, 'afterstop.cancel.unsettled': unsettled });
  }

  /** A model call `chat {model}`; ttfcMs becomes gen_ai.response.time_to_first_chunk in seconds; provider (default openai; null: none) gen_ai.provider.name. */
  model(o: { startMs: number; endMs: number; model?: string; provider?: string | null; input?: number; output?: number; ttfcMs?: number; afterCancel?: number; parent?: string } & SpanOptions): string {
    const attrs = defined({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': o.provider === undefined ? 'openai' : (o.provider ?? undefined),
      'gen_ai.request.model': o.model,
      'gen_ai.usage.input_tokens': o.input,
      'gen_ai.usage.output_tokens': o.output,
      'gen_ai.response.time_to_first_chunk': o.ttfcMs === undefined ? undefined : { double: o.ttfcMs / 1000 },
      'afterstop.model.output_tokens_after_cancel': o.afterCancel,
    });
    return this.span({ ...o, name: `chat ${o.model ?? ''}`.trim(), kind: 3, attrs: [...attrs, ...pairs(o.attrs)] });
  }

  /**
   * A tool call: its afterstop.tool.start marker (unless startMarker is false) and,
   * when endMs is given, its `execute_tool` span. Without endMs it never ended.
   * Without a start marker it is a foreign tool span (scope `foreign`), unless
   * `scope` says afterstop wrote it (a call that ended before the next export).
   */
  tool(
    o: {
      name: string;
      callId?: string;
      startMs: number;
      endMs?: number;
      result?: 'delivered' | 'late' | 'dropped' | 'cancelled';
      effect?: string;
      idempotencyKey?: string;
      startMarker?: boolean;
      errorType?: string;
      parent?: string;
      toolKind?: 'step' | 'compensate';
      scope?: string;
      /**
       * afterstop.tool.commit.count on its span, as afterstop writes it: 0 by default (the commit markers a scenario
       * adds are then all there is); null: none, as an older afterstop or a hand-written trace has it. Never on a foreign span.
       */
      commitCount?: number | null;
    } & SpanOptions,
  ): string {
    const spanId = this.t.newSpanId();
    const call = defined({ 'gen_ai.tool.name': o.name, 'gen_ai.tool.call.id': o.callId, 'afterstop.tool.kind': o.toolKind });
    this.tools.set(o.callId ?? spanId, { spanId, name: o.name, ...(o.effect ? { effect: o.effect } : {}), ...(o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {}) });
    // The start marker carries the effect class, as afterstop's own does.
    if (o.startMarker !== false) this.marker('afterstop.tool.start', o.startMs, [...call, ...defined({ 'afterstop.tool.effect': o.effect })]);
    if (o.endMs === undefined) return spanId;
    const attrs = defined({
      'gen_ai.operation.name': 'execute_tool',
      'afterstop.tool.effect': o.effect,
      'afterstop.tool.idempotency_key': o.idempotencyKey,
      'afterstop.tool.result': o.result,
      'error.type': o.errorType,
    });
    const scope = o.scope ?? (o.startMarker === false ? 'foreign' : undefined);
    const count = scope === 'foreign' || o.commitCount === null ? [] : defined({ 'afterstop.tool.commit.count': o.commitCount ?? 0 });
    return this.span({ ...o, spanId, name: `execute_tool ${o.name}`, attrs: [...call, ...attrs, ...count, ...pairs(o.attrs)], ...(scope ? { scope } : {}) });
  }

  /** An afterstop.tool.commit marker under its tool span; name, effect and key default to the tool's. */
  commit(o: {
    callId: string;
    atMs: number;
    state?: 'none' | 'requested' | 'acknowledged';
    tool?: string;
    effect?: string;
    idempotencyKey?: string;
    noCallId?: boolean;
    /** How the commit is known; request_sent with unansweredMs: the body reached the service that long before atMs. */
    evidence?: 'manual' | 'response' | 'request_sent' | 'mcp_result';
    unansweredMs?: number;
    /** More attributes (an MCP client's commit: mcp.method.name, jsonrpc.request.id). */
    attrs?: Attrs;
    /** The idempotency key its HTTP request carried (the guard's header). */
    guardKey?: string;
    /** The span id its request's traceparent carried (issue 49: afterstop's request span, Run.request). */
    requestSpanId?: string;
    /** A response commit's round trip: ms from the body sent to the answer (issue 49). */
    roundTripMs?: number;
    /** Made after Stop and let through by the guard's fence: the Stop propagating (cancel) or cleanup. */
    fencePassed?: 'cancel' | 'cleanup';
  }): string {
    const tool = this.tools.get(o.callId);
    const attrs = defined({
      'gen_ai.tool.name': o.tool ?? tool?.name ?? 'tool',
      'gen_ai.tool.call.id': o.noCallId ? undefined : o.callId,
      'afterstop.tool.effect': o.effect ?? tool?.effect,
      'afterstop.tool.idempotency_key': o.idempotencyKey ?? tool?.idempotencyKey,
      'afterstop.cancel.state': o.state ?? 'none',
      'afterstop.tool.commit.evidence': o.evidence,
      'afterstop.tool.commit.unanswered_ms': o.unansweredMs === undefined ? undefined : { double: o.unansweredMs },
      'afterstop.guard.idempotency_key': o.guardKey,
      'afterstop.guard.fence.passed': o.fencePassed,
      'afterstop.tool.commit.request_span_id': o.requestSpanId,
      'afterstop.tool.commit.round_trip_ms': o.roundTripMs === undefined ? undefined : { double: o.roundTripMs },
    });
    return this.marker('afterstop.tool.commit', o.atMs, [...attrs, ...pairs(o.attrs)], tool?.spanId);
  }
  /** An afterstop.tool.commit.prevented marker (the guard's fence refused a request) under its tool span. */
  prevented(o: { callId: string; atMs: number; tool?: string; effect?: string; state?: 'requested' | 'acknowledged' }): string {
    const tool = this.tools.get(o.callId);
    const attrs = defined({
      'gen_ai.tool.name': o.tool ?? tool?.name ?? 'tool',
      'gen_ai.tool.call.id': o.callId,
      'afterstop.tool.effect': o.effect ?? tool?.effect,
      'afterstop.cancel.state': o.state ?? 'requested',
      'http.request.method': 'POST',
      'server.address': 'api.example.com',
    });
    return this.marker('afterstop.tool.commit.prevented', o.atMs, attrs, tool?.spanId);
  }
  compensate(o: { callId: string; atMs: number; outcome: 'succeeded' | 'failed' }): string {
    return this.marker('afterstop.tool.compensate', o.atMs, { 'gen_ai.tool.call.id': o.callId, 'afterstop.compensation.outcome': o.outcome });
  }
  repair(atMs: number, callIds: string[], strategy: 'synthetic_result' | 'drop_turn' = 'synthetic_result'): string {
    return this.marker('afterstop.history.repair', atMs, { 'afterstop.repair.strategy': strategy, 'afterstop.repair.tool_call_ids': callIds });
  }
  steerEnqueue(id: string, atMs: number): string {
    return this.marker('afterstop.steer.enqueue', atMs, { 'afterstop.steer.id': id });
  }
  steerInject(id: string, atMs: number, position: 'between_steps' | 'inside_tool_batch' = 'between_steps'): string {
    return this.marker('afterstop.steer.inject', atMs, { 'afterstop.steer.id': id, 'afterstop.steer.position': position });
  }
  steerDrop(id: string, atMs: number, reason = 'cancelled'): string {
    return this.marker('afterstop.steer.drop', atMs, { 'afterstop.steer.id': id, 'afterstop.steer.reason': reason });
  }
  processOrphan(atMs: number, pid = 4242): string {
    return this.marker('afterstop.process.orphan', atMs, { 'process.pid': pid });
  }

  /**
   * afterstop's request span of a tool's HTTP request (issue 49): kind CLIENT, named by its method, under the
   * call's tool span, its context the traceparent the request carried; `status` its answer's status code
   * (none: the answer was lost, status ERROR and error.type request_lost).
   */
  request(o: { callId: string; startMs: number; endMs: number; status?: number; method?: string }): string {
    const tool = this.tools.get(o.callId);
    return this.span({
      name: o.method ?? 'POST',
      kind: 3,
      startMs: o.startMs,
      endMs: o.endMs,
      ...(tool ? { parent: tool.spanId } : {}),
      attrs: defined({
        'http.request.method': o.method ?? 'POST',
        'server.address': 'api.example.com',
        'server.port': 443,
        'url.scheme': 'https',
        'afterstop.request.trace_context': 'injected',
        'http.response.status_code': o.status,
        'error.type': o.status === undefined ? 'request_lost' : undefined,
      }),
      ...(o.status === undefined || o.status >= 400 ? { status: 'error' as const } : {}),
    });
  }

  /**
   * A span of a service in its own process (issue 49), in this run's trace, without afterstop's attributes:
   * `parent` the span whose context its request carried (an entry span, kind SERVER, under afterstop's request
   * span) or one of its own. Its resource: service.name `service` (default `orders-api`) and, unless `instance`
   * is null, service.instance.id `instance` (default the service's name and `-1`).
   */
  serviceSpan(o: { name: string; parent: string; startMs: number; endMs: number; kind?: number; service?: string; instance?: string | null; status?: Status; attrs?: Attrs }): string {
    const spanId = this.t.newSpanId();
    const service = o.service ?? 'orders-api';
    const instance = o.instance === undefined ? `${service}-1` : o.instance;
    this.t.add(
      service,
      {
        traceId: this.traceId,
        spanId,
        parentSpanId: o.parent,
        name: o.name,
        kind: o.kind ?? 1,
        startNs: ns(o.startMs),
        endNs: ns(o.endMs),
        attrs: pairs(o.attrs),
        ...(o.status ? { status: o.status } : {}),
        scope: '@opentelemetry/instrumentation-http',
      },
      instance === null ? [] : [['service.instance.id', instance]],
    );
    return spanId;
  }

  /**
   * The server side of an MCP tools/call (issue 48) as the server's process writes it: no afterstop.run.id, its own
   * service (default `mcp-server`), under `parent` (the client's tool span, whose traceparent the request carried)
   * in this run's trace; `parent: null`, a trace of its own (the client sent none, or was not instrumented);
   * `'missing'`, a trace of its own under a parent never exported (a client whose spans went elsewhere).
   * afterstop's span (`execute_tool {tool}`, afterstop.mcp.side = server, its commit count), or another
   * instrumentation's (`foreign`: `tools/call {tool}`, kind SERVER, its scope, no afterstop attributes).
   */
  mcpServer(o: {
    tool: string;
    parent: string | null | 'missing';
    startMs: number;
    endMs: number;
    requestId?: string;
    handler?: 'stopped' | 'finished_after_cancel';
    commitCount?: number | null;
    foreign?: boolean;
    service?: string;
    /** afterstop.tool.out_of_sight on the server's span (it passed its work on where afterstop could not watch). */
    outOfSight?: string;
  }): McpServerSide {
    const ownTrace = o.parent === null || o.parent === 'missing';
    const traceId = ownTrace ? this.t.newTraceId() : this.traceId;
    const parent = o.parent === 'missing' ? this.t.newSpanId() : o.parent;
    const spanId = this.t.newSpanId();
    const mcp = defined({ 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': o.requestId ?? '7', 'gen_ai.tool.name': o.tool, 'network.transport': 'pipe' });
    const own = o.foreign
      ? []
      : defined({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.call.id': `mcp:${o.requestId ?? '7'}`,
          'afterstop.mcp.side': 'server',
          'afterstop.mcp.server': 'mail-server',
          'afterstop.mcp.handler': o.handler,
          'afterstop.tool.commit.count': o.commitCount === null ? undefined : (o.commitCount ?? 0),
          'afterstop.tool.out_of_sight': o.outOfSight,
        });
    const service = o.service ?? 'mcp-server';
    this.t.add(service, {
      traceId,
      spanId,
      ...(parent === null ? {} : { parentSpanId: parent }),
      name: o.foreign ? `tools/call ${o.tool}` : `execute_tool ${o.tool}`,
      kind: 2,
      startNs: ns(o.startMs),
      endNs: ns(o.endMs),
      attrs: [...mcp, ...own],
      ...(o.foreign ? { scope: '@example/mcp-otel' } : {}),
    });
    return new McpServerSide(this.t, service, traceId, spanId, o.tool, o.requestId ?? '7');
  }
}

/** The server side of an MCP tools/call (Run.mcpServer): its markers, children of its span, without afterstop.run.id. */
export class McpServerSide {
  constructor(
    private readonly t: Traces,
    private readonly service: string,
    readonly traceId: string,
    readonly spanId: string,
    private readonly tool: string,
    private readonly requestId: string,
  ) {}
  private marker(name: string, atMs: number, attrs: [string, AttrValue][]): string {
    const spanId = this.t.newSpanId();
    this.t.add(this.service, { traceId: this.traceId, spanId, parentSpanId: this.spanId, name, kind: 1, startNs: ns(atMs), endNs: ns(atMs), attrs });
    return spanId;
  }
  /** A commit its process detected (the e-mail service's answer: response). */
  commit(atMs: number, evidence: 'manual' | 'response' | 'request_sent' = 'response', unansweredMs?: number): string {
    return this.marker(
      'afterstop.tool.commit',
      atMs,
      defined({
        'gen_ai.tool.name': this.tool,
        'gen_ai.tool.call.id': `mcp:${this.requestId}`,
        'afterstop.tool.commit.evidence': evidence,
        'afterstop.tool.commit.unanswered_ms': unansweredMs === undefined ? undefined : { double: unansweredMs },
        'afterstop.cancel.state': 'none',
        'afterstop.mcp.side': 'server',
        'jsonrpc.request.id': this.requestId,
      }),
    );
  }
  /** Its afterstop.tool.start marker, as afterstop's tool call machinery writes it in the server's process. */
  toolStart(atMs: number): string {
    return this.marker('afterstop.tool.start', atMs, defined({ 'gen_ai.tool.name': this.tool, 'gen_ai.tool.call.id': `mcp:${this.requestId}`, 'afterstop.mcp.side': 'server' }));
  }
  /** The cancel it received (afterstop.mcp.cancel.received). */
  cancelReceived(atMs: number, via: 'notification' | 'stream_closed' = 'notification'): string {
    return this.marker(
      'afterstop.mcp.cancel.received',
      atMs,
      defined({ 'jsonrpc.request.id': this.requestId, 'afterstop.mcp.cancel.via': via, 'gen_ai.tool.call.id': `mcp:${this.requestId}`, 'afterstop.mcp.side': 'server' }),
    );
  }
}

const tempDirs: string[] = [];
process.on('exit', () => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

export class Traces {
  // Trace ids from 0xb0000001: the golden fixtures number theirs from 1, and a test that reads both
  // must not see two runs merged into one trace (which copy of a span is kept then depends on paths).
  private nextTrace = 0xb0000001;
  private nextSpan = 1;
  private readonly lines: { service: string; span: Span; resource: [string, AttrValue][] }[] = [];

  newTraceId(): string {
    return hex(this.nextTrace++, 32);
  }
  newSpanId(): string {
    return hex(this.nextSpan++, 16);
  }
  /** A span of the process whose resource is service.name `service` and the `resource` attributes given. */
  add(service: string | undefined, span: Span, resource: [string, AttrValue][] = []): void {
    this.lines.push({ service: service ?? 'svc', span, resource });
  }
  run(options: RunOptions): Run {
    return new Run(this, options);
  }

  /** The OTLP/JSON lines: one ExportTraceServiceRequest per span. */
  toLines(): string[] {
    return this.lines.map(({ service, span: s, resource }) =>
      JSON.stringify({
        resourceSpans: [
          {
            resource: {
              attributes: kvs([['service.name', service], ['afterstop.schema.version', '0.1'], ...resource]),
            },
            scopeSpans: [
              {
                scope: { name: s.scope ?? 'afterstop', version: '0.1.0' },
                spans: [
                  {
                    traceId: s.traceId,
                    spanId: s.spanId,
                    parentSpanId: s.parentSpanId ?? '',
                    name: s.name,
                    kind: s.kind,
                    startTimeUnixNano: String(s.startNs),
                    endTimeUnixNano: String(s.endNs),
                    attributes: kvs(s.attrs),
                    ...(s.exceptions
                      ? {
                          events: s.exceptions.map((e) => ({
                            timeUnixNano: String(s.endNs),
                            name: 'exception',
                            attributes: kvs([...(e.type ? [['exception.type', e.type] as [string, AttrValue]] : []), ...(e.message ? [['exception.message', e.message] as [string, AttrValue]] : [])]),
                          })),
                        }
                      : {}),
                    status: statusJson(s.status),
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
  }

  /** Write the lines to a new temporary .jsonl file; returns its path. */
  write(name = 'traces.jsonl'): string {
    return writeLines(this.toLines(), name);
  }
}

function statusJson(s: Status | undefined): Record<string, unknown> {
  if (s === undefined) return {};
  const o = typeof s === 'string' ? { code: s } : s;
  return { code: o.code === 'error' ? 2 : 1, ...(o.message !== undefined ? { message: o.message } : {}) };
}

/** Write raw lines (already JSON) to a new temporary file. */
export function writeLines(lines: string[], name = 'traces.jsonl'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-q-'));
  tempDirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export const traces = (): Traces => new Traces();

// ---------------------------------------------------------------- the store

export const PRICES: Record<string, [number, number]> = { 'gpt-4o': [2.5, 10], 'gpt-4o-mini': [0.15, 0.6] };

export const openStore = (): Promise<Store> => Store.open(':memory:');

export async function ingestFiles(store: Store, files: string[]): Promise<void> {
  await ingest(store, files);
}

/**
 * The temporary table report_prices, as the report loads it (report.ts's loadReportPrices): the window's
 * provider, model and minute keys, priced by `prices` (model → [input, output] USD per million tokens) as a
 * user's --prices table, and by genai-prices only when `genaiPrices` is set (a query test's figures then stay
 * those of its own table).
 */
export async function loadPrices(store: Store, prices: Record<string, [number, number]> = PRICES, o: PrepareOptions = {}): Promise<void> {
  const models = Object.fromEntries(Object.entries(prices).map(([model, [input, output]]) => [model, { input_usd_per_mtok: input, output_usd_per_mtok: output }]));
  const keys = await store.typedRows('model-call-price-keys', withReportParams('model-call-price-keys', o) as Record<string, bigint | string | null>);
  const rows = resolvePrices(keys, { models }, { genaiPrices: o.genaiPrices ?? false });
  await store.run(query('load-prices'), { prices: JSON.stringify(rows) });
}

export { PREPARE };

export interface PrepareOptions {
  sinceMs?: number;
  untilMs?: number;
  budgetMs?: number;
  prices?: Record<string, [number, number]>;
  /** Price the models `prices` does not list by @pydantic/genai-prices, as the report does. Default false. */
  genaiPrices?: boolean;
}

/** Rows of `sql` over the spans the store holds (its Parquet files), as the table `stored`. */
export async function storedRows(store: Store, sql: string): Promise<Row[]> {
  await prepareReportSpans(store, null, null);
  return sqlRows(store, sql.replaceAll('{stored}', 'report_spans'));
}

/** The report's options for a window given in ms after the base (whole ms: the report's window is a Date). */
const reportWindow = (o: PrepareOptions): { since?: Date; until?: Date } => {
  const at = (ms: number): Date => new Date(Number(BASE_NS / 1_000_000n) + ms);
  return { ...(o.sinceMs === undefined ? {} : { since: at(o.sinceMs) }), ...(o.untilMs === undefined ? {} : { until: at(o.untilMs) }) };
};

/** `params` with those the report gives the query (report.ts's reportParams: the window, the budget). */
const withReportParams = (name: string, o: PrepareOptions, params: Record<string, DuckDBValue> = {}): Record<string, DuckDBValue> => ({
  ...reportParams({ ...reportWindow(o), ...(o.budgetMs === undefined ? {} : { budgetMs: o.budgetMs }) })(name),
  ...params,
});

/** Load prices and run the whole prepare chain, with the parameters the report gives it (reportParams). */
export async function prepare(store: Store, o: PrepareOptions = {}): Promise<void> {
  await loadPrices(store, o.prices, o);
  const { since_ns, until_ns } = windowParams(reportWindow(o));
  await prepareReportSpans(store, since_ns, until_ns);
  for (const name of PREPARE) await store.run(query(name), withReportParams(name, o));
}

type Row = Record<string, unknown>;
/** bigint → number when it is safe (ns times stay bigint: compare them with ns(ms) or relMs). */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(plain);
  return v;
}
/**
 * A run column (`run_id`, `first_run_id`, ...) as the report shows it: the store keys a run by trace and id
 * (`<trace id>:<run id>`, run_key in macros.sql); scenarios name runs by their id, so the trace part is
 * taken off here. (Tests of the key itself read the report's run counts.)
 */
const runColumn = (k: string, v: unknown): unknown => (k.endsWith('run_id') && typeof v === 'string' && v.includes(':') ? v.slice(v.indexOf(':') + 1) : v);
const plainRow = (r: Row): Row => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, runColumn(k, plain(v))]));

/** The rows of queries/<name>.sql. */
export async function queryRows(store: Store, name: string, params: Record<string, DuckDBValue> = {}): Promise<Row[]> {
  return (await store.rows(query(name), params)).map(plainRow);
}
/** Any SQL (e.g. a prepared temporary table). */
export async function sqlRows(store: Store, sql: string): Promise<Row[]> {
  const reader = await store.connection.runAndReadAll(sql);
  return reader.getRowObjectsJS().map(plainRow);
}

export interface Analyzed {
  store: Store;
  /** Rows of queries/<name>.sql. */
  rows(name: string, params?: Record<string, DuckDBValue>): Promise<Row[]>;
  /** The total row of an aggregate query. */
  total(name: string): Promise<Row>;
  /** The rows of a prepared temporary table (`report_runs` ...), optionally filtered and ordered. */
  table(name: string, rest?: string): Promise<Row[]>;
  /** The retention forgets `run`: its run_facts row goes, and prune-facts.sql takes what belongs to it. */
  forgetRun(run: Run): Promise<void>;
  close(): void;
}

/** Write the traces, ingest them into a :memory: store and run the prepare chain. */
export async function analyzeTraces(t: Traces | string[], o: PrepareOptions = {}): Promise<Analyzed> {
  const store = await openStore();
  await ingestFiles(store, Array.isArray(t) ? t : [t.write()]);
  await prepare(store, o);
  return {
    store,
    rows: (name, params) => queryRows(store, name, withReportParams(name, o, params)),
    total: async (name) => {
      const total = (await queryRows(store, name, withReportParams(name, o))).find((r) => r['total'] === true);
      if (!total) throw new Error(`${name}: no total row`);
      return total;
    },
    table: (name, rest = '') => sqlRows(store, `SELECT * FROM ${name} ${rest}`),
    forgetRun: async (run) => {
      await store.connection.run('DELETE FROM run_facts WHERE run_id = $run', { run: `${run.traceId}:${run.spanId}` });
      await store.script(query('prune-facts'));
    },
    close: () => store.close(),
  };
}

export { listValue };
