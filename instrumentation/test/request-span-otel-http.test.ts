import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { captureTraces, named, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * An app whose own HTTP instrumentation is OpenTelemetry's (`@opentelemetry/instrumentation-http`): its client
 * span is the request's parent, and its `traceparent` the only one the service gets; afterstop adds no span,
 * and the tool's commit names the app's span.
 */
const require = createRequire(import.meta.url);
let capture: TraceCapture;
let instrumentation: HttpInstrumentation;
let http: typeof Http;
let server: Http.Server;
let port: number;
const received: string[][] = [];

beforeAll(async () => {
  capture = captureTraces();
  // Enabled after afterstop's pipeline registered its provider: the app's spans go through it.
  instrumentation = new HttpInstrumentation();
  instrumentation.enable();
  http = require('node:http') as typeof Http;
  server = http.createServer((req, res) => {
    const values: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'traceparent') values.push(req.rawHeaders[i + 1]!);
    received.push(values);
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  instrumentation.disable();
  await capture.close();
});

function post(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`http://127.0.0.1:${port}/charge`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('with @opentelemetry/instrumentation-http', () => {
  it('the app’s client span is the parent the service gets, alone; the commit names it; afterstop adds no request span', async () => {
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'charge', callId: 'call_otel', detectCommits: true }, () => post());
    run.end();
    expect(received).toHaveLength(1);
    expect(received[0]).toHaveLength(1);
    const spanId = received[0]![0]!.split('-')[2];
    const all = await capture.spans();
    const tool = all.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call_otel' && s.name.startsWith('execute_tool'))!;
    const client = all.find((s) => s.spanId === spanId)!;
    expect(client.scope).toBe('@opentelemetry/instrumentation-http');
    expect(client.kind).toBe(3);
    expect(client.parentSpanId).toBe(tool.spanId);
    // The only CLIENT span of the tool is the app's.
    expect(all.filter((s) => s.kind === 3 && s.traceId === tool.traceId).map((s) => s.scope)).toEqual(['@opentelemetry/instrumentation-http']);
    const commit = named(all, 'afterstop.tool.commit').find((s) => s.attributes['gen_ai.tool.call.id'] === 'call_otel')!;
    expect(commit.attributes['afterstop.tool.commit.request_span_id']).toBe(spanId);
  });
});
