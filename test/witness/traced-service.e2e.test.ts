import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { flattenRequest, type FlatSpan } from '../../analyzer/index.js';
import { startSimulator, type Simulator } from '../../analyzer/simulator/index.js';
import { tempDir } from '../helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { fileLines, ROOT, startTracedService, type ServiceProcess } from '../helpers/witness.js';

/**
 * The far side of issue 49's tests, alone: the traced service (test/fixtures/witness/traced-service.mjs, the
 * official OpenTelemetry Node SDK and HTTP instrumentation), its clock shifted by libfaketime, exporting OTLP/HTTP
 * to a receiver that writes the file the report reads. Its caller here is the test, with a traceparent of its own.
 */
let sim: Simulator;
let dir: string;
let receiver: OtlpReceiver;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  dir = tempDir();
  receiver = await startOtlpReceiver({ file: path.join(dir, 'traces.jsonl') });
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const start = async (options: { shift?: string; traced?: boolean } = {}): Promise<ServiceProcess> =>
  (service = await startTracedService({ root: ROOT, simUrl: sim.url, otlpUrl: receiver.url, outbox: path.join(dir, 'outbox'), ...options }));

/** The spans of the receiver's file (what leak-report reads), not the receiver's memory. */
const fileSpans = (): FlatSpan[] => (fs.existsSync(path.join(dir, 'traces.jsonl')) ? fileLines(path.join(dir, 'traces.jsonl')).flatMap((body, i) => flattenRequest(body, 'traces.jsonl', i + 1)) : []);
const ms = (ns: bigint): number => Number(ns / 1_000_000n);

/** A W3C traceparent of the caller's own (a client span id the service's server span must take as its parent). */
function traceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

const post = (url: string, header: string, signal?: AbortSignal): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', traceparent: header }, body: JSON.stringify({ to: 'alice@example.com' }), ...(signal ? { signal } : {}) });

describe('the traced service (the far side of a tool request)', () => {
  it.each(['+5s', '-5s'])('clock shifted %s: its spans land in the file, under the caller’s traceparent, the work span and the forward under the server span, times shifted', async (shift) => {
    const s = await start({ shift });
    const context = traceparent();
    const sent = Date.now();
    const response = await post(`${s.url}/effects/send_email?delayMs=50`, context.header);
    const answered = Date.now();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'send_email', committed: true });
    await s.idle();
    await sim.idle();

    const spans = fileSpans().filter((x) => x.traceId === context.traceId);
    const server = spans.find((x) => x.kind === 2);
    expect(server, spans.map((x) => x.name).join(', ')).toBeDefined();
    expect(server!.parentSpanId).toBe(context.spanId);
    expect(server!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expect(server!.resource).toMatchObject({ 'service.name': 'mail-service', 'process.pid': s.child.pid });
    expect(typeof server!.resource['host.name']).toBe('string');
    const work = spans.find((x) => x.name === 'INSERT outbox')!;
    expect(work).toMatchObject({ kind: 3, parentSpanId: server!.spanId, statusCode: 0 });
    expect(work.attributes['db.system.name']).toBe('sqlite');
    const forward = spans.find((x) => x.kind === 3 && x.parentSpanId === work.spanId)!;
    expect(forward.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });

    // The service's clock is off by the shift: its receipt, on the test's clock, lies in [sent, answered].
    const offset = shift === '+5s' ? 5000 : -5000;
    expect(ms(server!.startNs) - offset).toBeGreaterThanOrEqual(sent - 50);
    expect(ms(server!.startNs) - offset).toBeLessThanOrEqual(answered + 50);
    // Its timers still run at their rate: the write waited the 50 ms asked.
    expect(ms(work.startNs - server!.startNs)).toBeGreaterThanOrEqual(49);
    // The ground truth: the effect, committed inside the work span (the simulator's clock is the test's).
    const [effect] = sim.ledger.effects.slice(-1);
    expect(effect).toMatchObject({ name: 'send_email', outcome: 'committed' });
    expect(ms(effect!.committedNs!) + offset).toBeGreaterThanOrEqual(ms(work.startNs) - 50);
    expect(ms(effect!.committedNs!) + offset).toBeLessThanOrEqual(ms(work.endNs) + 50);
  });

  it('its HTTP server span ends when the client disconnects, not in error, before the write it goes on to do', async () => {
    const s = await start();
    const context = traceparent();
    const abort = new AbortController();
    const before = sim.ledger.effects.length;
    const cut = post(`${s.url}/effects/send_email?delayMs=300`, context.header, abort.signal);
    setTimeout(() => abort.abort(), 100);
    await expect(cut).rejects.toThrow();
    await s.idle();
    await sim.idle();
    const spans = fileSpans().filter((x) => x.traceId === context.traceId);
    const server = spans.find((x) => x.kind === 2)!;
    const work = spans.find((x) => x.name === 'INSERT outbox')!;
    // OpenTelemetry's HTTP instrumentation ends the server span at the socket's close: the client's
    // disconnect, whatever the handler does next. Its status is not an error: the span alone cannot tell.
    expect(server.endNs).toBeLessThan(work.startNs);
    expect(server.statusCode).not.toBe(2);
    expect(work.statusCode).toBe(0);
    expect(sim.ledger.effects.slice(before).map((e) => e.outcome)).toEqual(['committed']);
  });

  it('a write that fails after the client left: the work span in error, no effect in the ledger', async () => {
    const s = await start();
    const context = traceparent();
    const abort = new AbortController();
    const before = sim.ledger.effects.length;
    const cut = post(`${s.url}/effects/send_email?delayMs=200&failOnDisconnect=1`, context.header, abort.signal);
    setTimeout(() => abort.abort(), 50);
    await expect(cut).rejects.toThrow();
    await s.idle();
    await sim.idle();
    const work = fileSpans().find((x) => x.traceId === context.traceId && x.name === 'INSERT outbox')!;
    expect(work.statusCode).toBe(2);
    expect(fileSpans().filter((x) => x.parentSpanId === work.spanId)).toEqual([]);
    expect(sim.ledger.effects.slice(before)).toEqual([]);
  });

  it('fail=1 with the client there: answered 500, the work span in error, no effect', async () => {
    const s = await start();
    const before = sim.ledger.effects.length;
    const response = await post(`${s.url}/effects/send_email?delayMs=0&fail=1`, traceparent().header);
    expect(response.status).toBe(500);
    await s.idle();
    expect(fileSpans().find((x) => x.name === 'INSERT outbox')?.statusCode).toBe(2);
    expect(sim.ledger.effects.slice(before)).toEqual([]);
  });

  it('untraced (TRACED=0): the same effect, no span exported', async () => {
    const s = await start({ traced: false });
    const before = sim.ledger.effects.length;
    const response = await post(`${s.url}/effects/send_email?delayMs=0`, traceparent().header);
    expect(response.status).toBe(200);
    await s.idle();
    await sim.idle();
    expect(sim.ledger.effects.slice(before).map((e) => e.outcome)).toEqual(['committed']);
    expect(receiver.requests).toEqual([]);
  });
});
