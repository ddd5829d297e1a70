import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createOtlpExporter } from '../../export/otlp-exporter.js';
import { encodeTraceRequest, traceRequestPieces } from '../../export/otlp-json-encoder.js';

/**
 * The OTLP/HTTP exporter afterstop makes from the installed @opentelemetry/exporter-trace-otlp-http, posting to
 * a real local HTTP server: a request the queue encoded beforehand (exportEncoded) reaches the collector as
 * the same bytes as the client's own serialising of the spans.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function collector(): Promise<{ url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, bodies };
}

function spans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'otlp-exporter-test' }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('afterstop', '0.1.0');
  const run = tracer.startSpan('invoke_agent support', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.agent.name': 'support', 'afterstop.run.id': 'run-1' } });
  run.addEvent('afterstop.stop', { at: 'tool' });
  run.end();
  tracer.startSpan('execute_tool send_email ツール', { attributes: { 'gen_ai.tool.name': 'send_email', n: 3, ratio: 0.5, flags: [true] } }).end();
  provider.getTracer('other', '2').startSpan('http POST').end();
  return memory.getFinishedSpans();
}

const exported = (send: (done: (result: ExportResult) => void) => void): Promise<ExportResult> => new Promise((resolve) => send(resolve));

describe('the OTLP/HTTP exporter', () => {
  it('sends a request encoded beforehand as the same bytes its client serialises from the spans', async () => {
    const { url, bodies } = await collector();
    const peer = createOtlpExporter({ url });
    if (!('module' in peer)) throw new Error(`the OTLP exporter did not load: ${JSON.stringify(peer)}`);
    const exporter = peer.module;
    // The installed client has the serialiser where afterstop looks for it: a change there fails here.
    expect(typeof exporter.exportEncoded).toBe('function');
    const batch = spans();
    expect((await exported((done) => exporter.export(batch, done))).code).toBe(ExportResultCode.SUCCESS);
    expect((await exported((done) => exporter.exportEncoded?.(batch, traceRequestPieces(batch), done))).code).toBe(ExportResultCode.SUCCESS);
    // A batch handed the usual way after one encoded beforehand is serialised by the client, not given the earlier bytes.
    const other = batch.slice(1);
    expect((await exported((done) => exporter.export(other, done))).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();
    expect(bodies).toHaveLength(3);
    expect(bodies[1]!.toString()).toBe(bodies[0]!.toString());
    expect(bodies[2]!.toString()).toBe(encodeTraceRequest(other));
    expect(JSON.parse(bodies[1]!.toString()).resourceSpans[0].scopeSpans.map((s: { spans: unknown[] }) => s.spans.length)).toEqual([2, 1]);
  });
});
