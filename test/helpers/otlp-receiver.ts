import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { flattenRequest, type FlatSpan } from '../../analyzer/index.js';

/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1 (ephemeral port). It accepts
 * POST /v1/traces with an OTLP/JSON body (what @opentelemetry/exporter-trace-otlp-http
 * sends by default: `Content-Type: application/json`), gzip or not, and
 * records every request. Any other request is logged as an event, so a test
 * can tell what arrived before what.
 */
export interface ReceivedRequest {
  /** Position among all events (requests of any path), from 0. */
  seq: number;
  contentType: string;
  body: unknown;
  spans: FlatSpan[];
}

export interface ReceiverEvent {
  seq: number;
  method: string;
  path: string;
  /** The request's `traceparent` header, if it had one (telemetry's own requests must not). */
  traceparent?: string;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  requests: ReceivedRequest[];
  events: ReceiverEvent[];
  /** Every span received so far. */
  spans(): FlatSpan[];
  /** Bodies that were not OTLP/JSON, with why. */
  rejected: string[];
  /** Wait (bounded) until `predicate` holds over the spans received. */
  waitFor(predicate: (spans: FlatSpan[]) => boolean, timeoutMs?: number): Promise<FlatSpan[]>;
  /**
   * A collector in trouble, until set back to undefined: `500` (an error), `429` (too many requests,
   * Retry-After: 1), `reset` (the connection dropped), `hang` (no answer). Exports it refuses are
   * counted in `refused`, their spans not received.
   */
  fault: '500' | '429' | 'reset' | 'hang' | undefined;
  refused: number;
  /** OTLP/JSON metric exports received on POST /v1/metrics (always answered 200; `fault` is for traces only). */
  metrics: unknown[];
  /** The latest value of each data point of a metric, keyed by its attributes as JSON (sums and gauges). */
  latestMetric(name: string): Map<string, number>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Answer /v1/traces this long after the body arrived (the body is recorded at once). */
  responseDelayMs?: number;
  /**
   * Also append each trace export to this file, one OTLP/JSON request a line, before it is answered: what a
   * Collector's file exporter writes (`file` exporter, `format: json`), for `afterstop leak-report` to read.
   */
  file?: string;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const events: ReceiverEvent[] = [];
  const rejected: string[] = [];
  let seq = 0;

  const metrics: unknown[] = [];
  const receiver = { fault: undefined as OtlpReceiver['fault'], refused: 0, metrics };
  const server = http.createServer((req, res) => {
    const event: ReceiverEvent = { seq: seq++, method: req.method ?? '', path: req.url ?? '' };
    if (req.headers.traceparent !== undefined) event.traceparent = String(req.headers.traceparent);
    events.push(event);
    if (req.method === 'POST' && req.url === '/v1/metrics') {
      void readBody(req).then((raw) => {
        try {
          metrics.push(JSON.parse((req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8')));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch (error) {
          rejected.push(`metrics: ${error instanceof Error ? error.message : String(error)}`);
          res.writeHead(400).end();
        }
      });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      req.resume();
      res.writeHead(req.url?.startsWith('/mark') ? 204 : 404).end();
      return;
    }
    const fault = receiver.fault;
    if (fault !== undefined) {
      receiver.refused++;
      if (fault === 'reset') return void req.socket.destroy();
      if (fault === 'hang') return void req.resume();
      req.resume();
      res.writeHead(Number(fault), fault === '429' ? { 'retry-after': '1' } : {}).end();
      return;
    }
    void readBody(req).then((raw) => {
      const contentType = String(req.headers['content-type'] ?? '');
      try {
        const text = (req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8');
        if (!contentType.startsWith('application/json')) throw new Error(`not JSON: ${contentType}`);
        const body: unknown = JSON.parse(text);
        if (options.file !== undefined) fs.appendFileSync(options.file, `${JSON.stringify(body)}\n`);
        requests.push({ seq: event.seq, contentType, body, spans: flattenRequest(body, 'otlp-http', requests.length + 1) });
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error));
        res.writeHead(400).end();
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, options.responseDelayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const spans = (): FlatSpan[] => requests.flatMap((r) => r.spans);
  type Point = { attributes?: { key: string; value: Record<string, unknown> }[]; asInt?: string | number; asDouble?: number };
  type Metric = { name: string; sum?: { dataPoints: Point[] }; gauge?: { dataPoints: Point[] } };
  const latestMetric = (name: string): Map<string, number> => {
    const latest = new Map<string, number>();
    for (const body of metrics as { resourceMetrics?: { scopeMetrics?: { metrics?: Metric[] }[] }[] }[]) {
      for (const m of (body.resourceMetrics ?? []).flatMap((r) => (r.scopeMetrics ?? []).flatMap((sm) => sm.metrics ?? []))) {
        if (m.name !== name) continue;
        for (const p of (m.sum ?? m.gauge)?.dataPoints ?? []) {
          const attrs = Object.fromEntries((p.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
          latest.set(JSON.stringify(attrs), Number(p.asInt ?? p.asDouble ?? 0));
        }
      }
    }
    return latest;
  };
  return Object.assign(receiver, {
    latestMetric,
    url: `http://127.0.0.1:${port}`,
    requests,
    events,
    rejected,
    spans,
    async waitFor(predicate: (spans: FlatSpan[]) => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans())) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: condition not met in ${timeoutMs} ms; got ${spans()
              .map((s) => s.name)
              .join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return spans();
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
