import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { BoundedBatchSpanProcessor, EXPORT_AT, type QueueOptions } from '../../export/queue.js';
import { COLD_SLICE, ENCODE_PART, EXPORT_SLICE } from '../../export/slices.js';
import type { SyncCapableExporter } from '../../export/sync-capable-exporter.js';
import { encodeTraceRequest } from '../../export/otlp-json-encoder.js';
import type { ReadableSpan } from '../../provider/sdk-types.js';
import { AFTERSTOP_SCOPE, SPAN_CANCEL_REQUEST } from '../../semconv.js';
import { distModule, runModule, tempDir } from '../../../test/helpers/child.js';
import { TestExporter, type ExporterMode } from '../../../test/helpers/test-exporter.js';

const defaults: QueueOptions = { maxQueueSize: 100, maxExportBatchSize: 50, scheduledDelayMs: 60_000, exportTimeoutMs: 60_000 };

const exporters: TestExporter[] = [];
const providers: BasicTracerProvider[] = [];
afterEach(async () => {
  // Answer every hanging export, so that shutting the providers down does not wait for them.
  for (const exporter of exporters.splice(0)) exporter.release();
  for (const provider of providers.splice(0)) await provider.shutdown().catch(() => {});
});

function testExporter(mode: ExporterMode): TestExporter {
  const exporter = new TestExporter(mode);
  exporters.push(exporter);
  return exporter;
}

/** A real SDK provider whose one span processor is the queue under test. */
function setupQueue(exporter: TestExporter, options: Partial<QueueOptions> = {}) {
  const queue = new BoundedBatchSpanProcessor(exporter, { ...defaults, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [queue] });
  providers.push(provider);
  const tracer = provider.getTracer('queue-test');
  const end = (name: string): void => {
    const span = tracer.startSpan(name);
    exporter.insideEnd = true;
    try {
      span.end();
    } finally {
      exporter.insideEnd = false;
    }
  };
  return { queue, end };
}

const names = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `s${from + i}`);
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('BoundedBatchSpanProcessor: bounded memory', () => {
  it('holds at most maxQueueSize spans, counts every eviction, and keeps the newest', () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 10, maxExportBatchSize: 1000 });
    for (let i = 0; i < 25; i++) {
      end(`s${i}`);
      expect(queue.stats().queued).toBeLessThanOrEqual(10);
    }
    expect(queue.stats()).toEqual({ queued: 10, exported: 0, dropped: 15, failedExports: 0 });
    expect(exporter.batches).toHaveLength(0);
    // What is left is the 10 newest, oldest first.
    queue.flushSync();
    expect(exporter.syncBatches.flat().map((s) => s.name)).toEqual(names(15, 25));
    expect(queue.stats()).toEqual({ queued: 0, exported: 10, dropped: 15, failedExports: 0 });
  });

  it('a full queue drops other spans before afterstop markers: a burst of Stops keeps every cancel request', () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 10, maxExportBatchSize: 1000 });
    // A burst: each run's span, its cancel request and its ack, 3 × 6 spans into a queue of 10.
    for (let i = 0; i < 6; i++) {
      end(`invoke_agent r${i}`);
      end(`afterstop.cancel.request r${i}`);
      end(`afterstop.cancel.ack r${i}`);
    }
    expect(queue.stats()).toMatchObject({ queued: 10, dropped: 8 });
    queue.flushSync();
    const kept = exporter.syncBatches.flat().map((s) => s.name);
    // Every marker is kept (12 would not fit: the oldest two markers went, after every other span).
    expect(kept.filter((n) => n.startsWith('invoke_agent'))).toEqual([]);
    expect(kept.filter((n) => n.startsWith('afterstop.cancel.request'))).toEqual([
      'afterstop.cancel.request r1',
      'afterstop.cancel.request r2',
      'afterstop.cancel.request r3',
      'afterstop.cancel.request r4',
      'afterstop.cancel.request r5',
    ]);
    expect(kept).toHaveLength(10);
  });

  it('Stop markers are the last evicted: a burst of more Stops than the queue holds keeps every one (the reserve), then the newest markers, then other spans', () => {
    const exporter = testExporter('hang');
    const queue = new BoundedBatchSpanProcessor(exporter, { ...defaults, maxQueueSize: 10, maxExportBatchSize: 1000 });
    const provider = new BasicTracerProvider({ spanProcessors: [queue] });
    providers.push(provider);
    const tracer = provider.getTracer(AFTERSTOP_SCOPE);
    // 30 runs Stopped at once: each run's span, its Stop marker and its ack, 90 spans into a queue of 10.
    for (let i = 0; i < 30; i++) {
      tracer.startSpan(`invoke_agent r${i}`).end();
      tracer.startSpan(SPAN_CANCEL_REQUEST, { attributes: { run: i } }).end();
      tracer.startSpan('afterstop.cancel.ack', { attributes: { run: i } }).end();
    }
    // 30 Stop markers in their reserve, the 10 newest acks; 30 run spans and 20 acks dropped, counted.
    expect(queue.stats()).toMatchObject({ queued: 40, dropped: 50 });
    queue.flushSync();
    const kept = exporter.syncBatches.flat();
    expect(kept.filter((s) => s.name === SPAN_CANCEL_REQUEST).map((s) => s.attributes['run'])).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(kept.filter((s) => s.name === 'afterstop.cancel.ack').map((s) => s.attributes['run'])).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
    expect(kept.filter((s) => s.name.startsWith('invoke_agent'))).toEqual([]);
  });

  it('with room for the markers, only other spans are dropped, the newest of them kept', () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 10, maxExportBatchSize: 1000 });
    for (let i = 0; i < 4; i++) end(`afterstop.cancel.request r${i}`);
    for (let i = 0; i < 20; i++) end(`chat ${i}`);
    queue.flushSync();
    const kept = exporter.syncBatches.flat().map((s) => s.name);
    expect(kept.filter((n) => n.startsWith('afterstop.'))).toHaveLength(4);
    expect(kept.filter((n) => n.startsWith('chat'))).toEqual(names(14, 20).map((n) => `chat ${n.slice(1)}`));
  });

  it('stays bounded while an export hangs, and counts the in-flight batch once it fails', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 10, maxExportBatchSize: 5 });
    for (let i = 0; i < 5; i++) end(`s${i}`);
    await tick();
    expect(exporter.batches.map((b) => b.length)).toEqual([5]); // s0..s4 in flight, never answered
    expect(queue.stats().queued).toBe(0);

    for (let i = 5; i < 30; i++) {
      end(`s${i}`);
      expect(queue.stats().queued).toBeLessThanOrEqual(10);
    }
    await tick();
    expect(exporter.batches).toHaveLength(1); // one export at a time
    expect(queue.stats()).toEqual({ queued: 10, exported: 0, dropped: 15, failedExports: 0 });

    exporter.pending.shift()!({ code: ExportResultCode.FAILED, error: new Error('503') });
    await tick();
    expect(queue.stats()).toMatchObject({ exported: 0, dropped: 20, failedExports: 1 });
    // The timer's drain stops at a failed export (a collector that is down is not sent batch after batch,
    // each holding the process with its client's retries): the next scheduled try, or a flush someone
    // waits for, goes on with the newest spans (s20..s29), five at a time.
    expect(exporter.batches.map((b) => b.map((s) => s.name))).toEqual([names(0, 5)]);

    exporter.mode = 'ok';
    await queue.flushSoon(1000);
    expect(exporter.exportedNames()).toEqual([...names(0, 5), ...names(20, 30)]);
    expect(queue.stats()).toEqual({ queued: 0, exported: 10, dropped: 20, failedExports: 1 });
  });
});

describe('BoundedBatchSpanProcessor: failed exports', () => {
  it('counts a failed batch as dropped and increments failedExports', async () => {
    const exporter = testExporter('fail');
    const { queue, end } = setupQueue(exporter);
    for (let i = 0; i < 7; i++) end(`s${i}`);
    await queue.forceFlush();
    expect(exporter.batches.map((b) => b.length)).toEqual([7]);
    expect(queue.stats()).toEqual({ queued: 0, exported: 0, dropped: 7, failedExports: 1 });

    exporter.mode = 'ok';
    for (let i = 7; i < 10; i++) end(`s${i}`);
    await queue.forceFlush();
    expect(queue.stats()).toEqual({ queued: 0, exported: 3, dropped: 7, failedExports: 1 });
  });

  it('counts an exporter that throws as a failed export, without throwing itself', async () => {
    const exporter = testExporter('throw');
    const { queue, end } = setupQueue(exporter);
    for (let i = 0; i < 4; i++) end(`s${i}`);
    await expect(queue.forceFlush()).resolves.toBeUndefined();
    expect(queue.stats()).toEqual({ queued: 0, exported: 0, dropped: 4, failedExports: 1 });
  });

  it('counts an export that outlives exportTimeoutMs as failed, and ignores its late answer', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { exportTimeoutMs: 30 });
    for (let i = 0; i < 3; i++) end(`s${i}`);
    await queue.flushSoon(5000);
    expect(queue.stats()).toEqual({ queued: 0, exported: 0, dropped: 3, failedExports: 1 });
    exporter.pending.shift()!({ code: ExportResultCode.SUCCESS });
    expect(queue.stats()).toEqual({ queued: 0, exported: 0, dropped: 3, failedExports: 1 });
  });
});

describe('BoundedBatchSpanProcessor: off the caller stack', () => {
  it('never exports inside span.end(), even when a batch is full', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter, { maxExportBatchSize: 1, scheduledDelayMs: 0 });
    end('s0');
    expect(exporter.batches).toHaveLength(0);
    for (let i = 1; i < 20; i++) end(`s${i}`);
    expect(exporter.batches).toHaveLength(0);
    await queue.flushSoon(1000);
    expect(exporter.calledInsideEnd).toBe(0);
    expect(exporter.exportedNames()).toEqual(names(0, 20));
    expect(queue.stats()).toEqual({ queued: 0, exported: 20, dropped: 0, failedExports: 0 });
  });

  it('exports a full batch on the next turn of the event loop, without waiting for the timer', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter, { maxExportBatchSize: 4, scheduledDelayMs: 60_000 });
    for (let i = 0; i < 4; i++) end(`s${i}`);
    expect(exporter.batches).toHaveLength(0);
    await tick();
    expect(exporter.batches.map((b) => b.length)).toEqual([4]);
    expect(queue.stats().exported).toBe(4);
  });

  it(`starts an export once ${EXPORT_AT} spans wait, however large a batch may be, and the next takes what gathered meanwhile, up to a batch`, async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 4096, maxExportBatchSize: 512, scheduledDelayMs: 60_000 });
    for (let i = 0; i < EXPORT_AT - 1; i++) end(`s${i}`);
    await tick();
    expect(exporter.batches).toHaveLength(0);
    end('last');
    for (let i = 0; i < 5; i++) await tick();
    expect(exporter.batches.flat()).toHaveLength(EXPORT_AT);
    // While that export is out, 600 spans gather: the next export takes a batch of them (512, in slices), then the rest.
    for (let i = 0; i < 600; i++) end(`g${i}`);
    exporter.release();
    for (let i = 0; i < 20; i++) await tick();
    expect(exporter.batches.flat()).toHaveLength(EXPORT_AT + 600);
    expect(Math.max(...exporter.batches.map((b) => b.length))).toBe(EXPORT_SLICE);
    expect(queue.stats()).toMatchObject({ queued: 0, exported: EXPORT_AT + 600 });
  });

  it('after a batch, goes on only while full batches wait: what is left waits for the timer, or a flush (no request of a few spans after each batch)', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxExportBatchSize: 4, scheduledDelayMs: 60_000 });
    for (let i = 0; i < 4; i++) end(`s${i}`);
    await tick();
    expect(exporter.batches.map((b) => b.length)).toEqual([4]);
    // While the first batch is out: one full batch more, and two spans.
    for (let i = 4; i < 10; i++) end(`s${i}`);
    exporter.release();
    for (let i = 0; i < 5; i++) await tick();
    expect(exporter.batches.map((b) => b.length)).toEqual([4, 4]);
    expect(queue.stats()).toMatchObject({ queued: 2, exported: 8 });
    await queue.flushSoon(1000);
    expect(exporter.batches.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(queue.stats()).toMatchObject({ queued: 0, exported: 10 });
  });

  it('exports a partial batch when scheduledDelayMs passes', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter, { scheduledDelayMs: 10 });
    end('s0');
    end('s1');
    const deadline = Date.now() + 5000;
    while (exporter.batches.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(exporter.exportedNames()).toEqual(['s0', 's1']);
    expect(queue.stats().exported).toBe(2);
  });
});

describe('BoundedBatchSpanProcessor: resource attributes still being detected', () => {
  it('waits once per resource, not once per span, and every exported span carries the detected attributes', async () => {
    const exporter = testExporter('ok');
    const queue = new BoundedBatchSpanProcessor(exporter, { ...defaults, maxQueueSize: 2048, maxExportBatchSize: 512 });
    // Two providers (two resources, each with an attribute a detector is still filling in) on one queue.
    const resources = ['a', 'b'].map((host) => resourceFromAttributes({ 'service.name': `svc-${host}`, 'host.id': new Promise<string>((resolve) => setTimeout(() => resolve(`host-${host}`), 5)) }));
    const waits = resources.map(() => 0);
    resources.forEach((resource, i) => {
      const wait = resource.waitForAsyncAttributes!.bind(resource);
      resource.waitForAsyncAttributes = () => {
        waits[i]!++;
        return wait();
      };
    });
    const tracers = resources.map((resource) => {
      const provider = new BasicTracerProvider({ resource, spanProcessors: [queue] });
      providers.push(provider);
      return provider.getTracer('queue-test');
    });
    for (let i = 0; i < 400; i++) tracers[i % 2]!.startSpan(`s${i}`).end();
    expect(resources.every((r) => r.asyncAttributesPending)).toBe(true);
    await queue.flushSoon(5000);
    expect(exporter.exportedNames()).toHaveLength(400);
    expect(waits).toEqual([1, 1]);
    const hosts = new Set(exporter.batches.flat().map((span) => `${String(span.resource.attributes['service.name'])}/${String(span.resource.attributes['host.id'])}`));
    expect([...hosts].sort()).toEqual(['svc-a/host-a', 'svc-b/host-b']);
  });
});

describe('BoundedBatchSpanProcessor: a batch in slices', () => {
  const big = { maxQueueSize: 2048, maxExportBatchSize: 512 };

  it(`hands a large batch to the exporter ${EXPORT_SLICE} spans at a time, the app getting a turn of the event loop between two`, async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter, big);
    for (let i = 0; i < 512; i++) end(`s${i}`);
    // The app's own macrotasks (setImmediate: a timer of 0 is 1 ms, and on an idle machine every slice can be
    // handed within one): some run while slices are still being handed.
    const seen: number[] = [];
    let done = false;
    const watch = (): void => {
      seen.push(exporter.batches.length);
      if (!done) setImmediate(watch);
    };
    setImmediate(watch);
    await queue.flushSoon(5000);
    done = true;
    // The queue's first slice of all is small (the exporter's code is cold), then full slices.
    expect(exporter.batches.map((b) => b.length)).toEqual([COLD_SLICE, ...Array<number>(512 / EXPORT_SLICE - 1).fill(EXPORT_SLICE), EXPORT_SLICE - COLD_SLICE]);
    expect(exporter.exportedNames()).toEqual(names(0, 512));
    expect(seen.some((handed) => handed > 0 && handed < 512 / EXPORT_SLICE)).toBe(true);
    // A later batch: full slices only.
    for (let i = 512; i < 1024; i++) end(`s${i}`);
    await queue.flushSoon(5000);
    expect(exporter.batches.slice(512 / EXPORT_SLICE + 1).map((b) => b.length)).toEqual(Array<number>(512 / EXPORT_SLICE).fill(EXPORT_SLICE));
    expect(exporter.exportedNames()).toEqual(names(0, 1024));
    expect(queue.stats()).toEqual({ queued: 0, exported: 1024, dropped: 0, failedExports: 0 });
  });

  it(`encodes a slice's request ${ENCODE_PART} spans a macrotask for an exporter that takes it encoded, and hands it over in a turn of its own`, async () => {
    const encoded: { spans: ReadableSpan[]; json: string; turns: number }[] = [];
    let turns = 0;
    const exporter = Object.assign(testExporter('ok'), {
      exportEncoded(spans: ReadableSpan[], request: readonly string[], done: (result: { code: ExportResultCode }) => void): void {
        encoded.push({ spans, json: request.join(''), turns });
        done({ code: ExportResultCode.SUCCESS });
      },
    });
    const { queue, end } = setupQueue(exporter, big);
    for (let i = 0; i < 200; i++) end(`s${i}`);
    // The app's own macrotasks, counted: each part of the encoding, and each hand-over, waits for a turn.
    let done = false;
    const watch = (): void => {
      turns++;
      if (!done) setImmediate(watch);
    };
    setImmediate(watch);
    await queue.flushSoon(5000);
    done = true;
    expect(exporter.batches).toEqual([]);
    expect(encoded.map((e) => e.spans.length)).toEqual([COLD_SLICE, EXPORT_SLICE, EXPORT_SLICE, 200 - COLD_SLICE - 2 * EXPORT_SLICE]);
    expect(encoded.flatMap((e) => e.spans.map((s) => s.name))).toEqual(names(0, 200));
    // The request is the spans' own, as the exporter would write it.
    for (const e of encoded) expect(e.json).toBe(encodeTraceRequest(e.spans));
    // Between two hand-overs, the app had a turn for every part of the next slice and one for the hand-over.
    for (let i = 1; i < encoded.length; i++) {
      expect(encoded[i]!.turns - encoded[i - 1]!.turns).toBeGreaterThanOrEqual(Math.floor(encoded[i]!.spans.length / ENCODE_PART) + 1);
    }
    expect(queue.stats()).toEqual({ queued: 0, exported: 200, dropped: 0, failedExports: 0 });
  });

  it('a slice still waiting its turn when the process exits is written by flushSync, once', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, big);
    for (let i = 0; i < 200; i++) end(`s${i}`);
    await tick(); // the drain starts: the first slice is with the exporter, the others wait
    await tick();
    queue.flushSync();
    const handed = [...exporter.batches.flat(), ...exporter.syncBatches.flat()].map((s) => s.name);
    expect(handed.sort()).toEqual(names(0, 200).sort());
    expect(exporter.syncBatches.flat().length).toBeGreaterThan(0);
    // Nothing handed twice when the drain goes on after the exit flush.
    await tick();
    await tick();
    await tick();
    expect([...exporter.batches.flat(), ...exporter.syncBatches.flat()]).toHaveLength(200);
  });

  it('a slice still being encoded when the process exits is written by flushSync, once, and not handed over after', async () => {
    const encoded: ReadableSpan[][] = [];
    const exporter = Object.assign(testExporter('ok'), {
      exportEncoded(spans: ReadableSpan[], _request: readonly string[], done: (result: { code: ExportResultCode }) => void): void {
        encoded.push(spans);
        done({ code: ExportResultCode.SUCCESS });
      },
    });
    const { queue, end } = setupQueue(exporter, big);
    for (let i = 0; i < 200; i++) end(`s${i}`);
    await tick(); // the drain starts: the first slice is being encoded, the others wait
    queue.flushSync();
    expect(exporter.syncBatches.flat().length).toBeGreaterThan(0);
    await queue.flushSoon(5000);
    const handed = [...encoded.flat(), ...exporter.syncBatches.flat()].map((s) => s.name);
    expect(handed.sort()).toEqual(names(0, 200).sort());
  });

  it('a batch one of whose slices failed counts those spans as dropped and the batch as failed', async () => {
    const exporter = testExporter('fail');
    const { queue, end } = setupQueue(exporter, big);
    for (let i = 0; i < 130; i++) end(`s${i}`);
    await queue.flushSoon(2000);
    expect(queue.stats()).toMatchObject({ exported: 0, dropped: 130, failedExports: 3 });
    expect(queue.collectorFailing()).toBe(true);
  });
});

describe('BoundedBatchSpanProcessor: flushing', () => {
  it('flushSoon resolves within its timeout when the exporter hangs', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter);
    end('s0');
    let outcome = 'pending';
    const flushed = queue.flushSoon(50).then(() => (outcome = 'flushed'));
    const stuck = new Promise<string>((resolve) => setTimeout(() => resolve('stuck'), 10_000).unref());
    expect(await Promise.race([flushed, stuck])).toBe('flushed');
    expect(outcome).toBe('flushed');
    expect(exporter.batches).toHaveLength(1);
    expect(queue.stats()).toMatchObject({ queued: 0, exported: 0 });
  });

  it('flushes asked for together while an export hangs share one (100,000 Stops held two timers and a promise chain each: 88 MB)', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxQueueSize: 20_000, maxExportBatchSize: 50 });
    const flushes = new Set<Promise<void>>();
    const started = Date.now();
    for (let i = 0; i < 10_000; i++) {
      end(`s${i}`);
      flushes.add(queue.flushSoon(5_000));
    }
    // One flush per 100 ms of asking at most (a later one may end no more than 100 ms before it asked), not one each.
    expect(flushes.size).toBeLessThanOrEqual(Math.floor((Date.now() - started) / 100) + 1);
    // The shared flush takes the spans queued after it began: all of them exported when the collector answers.
    await tick();
    expect(exporter.batches).toHaveLength(1);
    exporter.release();
    await Promise.all(flushes);
    expect(exporter.exportedNames()).toEqual(names(0, 10_000));
  });

  it('a flush asked for after the shared one found the queue empty is a new one, and exports its span', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter);
    end('s0');
    const first = queue.flushSoon(1000);
    await first;
    end('s1');
    const second = queue.flushSoon(1000);
    expect(second).not.toBe(first);
    await second;
    expect(exporter.exportedNames()).toEqual(names(0, 2));
  });

  it('flushSoon exports what is queued now', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter);
    for (let i = 0; i < 3; i++) end(`s${i}`);
    await queue.flushSoon(1000);
    expect(exporter.exportedNames()).toEqual(names(0, 3));
  });

  it('shutdown flushes, calls exporter.shutdown once, then ignores new spans', async () => {
    const exporter = testExporter('ok');
    const { queue, end } = setupQueue(exporter);
    for (let i = 0; i < 3; i++) end(`s${i}`);
    await queue.shutdown();
    expect(exporter.exportedNames()).toEqual(names(0, 3));
    expect(exporter.shutdownCalls).toBe(1);
    end('late');
    expect(queue.stats()).toEqual({ queued: 0, exported: 3, dropped: 0, failedExports: 0 });
    await queue.shutdown();
    expect(exporter.shutdownCalls).toBe(1);
  });

  it('shutdown still calls exporter.shutdown when the last flush hangs', async () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { exportTimeoutMs: 30 });
    end('s0');
    await queue.shutdown();
    expect(exporter.shutdownCalls).toBe(1);
  });

  it('flushSync hands the remaining spans to exportSync, in batches, oldest first', () => {
    const exporter = testExporter('hang');
    const { queue, end } = setupQueue(exporter, { maxExportBatchSize: 4 });
    for (let i = 0; i < 10; i++) end(`s${i}`);
    queue.flushSync();
    expect(exporter.syncBatches.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(exporter.syncBatches.flat().map((s) => s.name)).toEqual(names(0, 10));
    expect(exporter.batches).toHaveLength(0);
    expect(queue.stats()).toEqual({ queued: 0, exported: 10, dropped: 0, failedExports: 0 });
  });

  it('flushSync counts batches that exportSync refused as dropped', () => {
    const exporter = testExporter('hang');
    exporter.syncResult = false;
    const { queue, end } = setupQueue(exporter, { maxExportBatchSize: 4 });
    for (let i = 0; i < 6; i++) end(`s${i}`);
    queue.flushSync();
    expect(queue.stats()).toEqual({ queued: 0, exported: 0, dropped: 6, failedExports: 2 });
  });

  it('flushSync leaves the queue alone when the exporter cannot write synchronously', () => {
    const exporter = testExporter('hang');
    const asyncOnly: SyncCapableExporter = { export: (s, d) => exporter.export(s, d), shutdown: () => exporter.shutdown() };
    const queue = new BoundedBatchSpanProcessor(asyncOnly, defaults);
    const provider = new BasicTracerProvider({ spanProcessors: [queue] });
    providers.push(provider);
    provider.getTracer('t').startSpan('s0').end();
    queue.flushSync();
    expect(queue.stats()).toEqual({ queued: 1, exported: 0, dropped: 0, failedExports: 0 });
  });
});

describe('BoundedBatchSpanProcessor: options out of range', () => {
  /** 500 spans, 50 per turn of the event loop, to a healthy exporter: no more than 50 need to wait at once. */
  async function steadyTraffic(options: Partial<QueueOptions>) {
    const { queue, end } = setupQueue(testExporter('ok'), { scheduledDelayMs: 1000, ...options });
    for (let i = 0; i < 500; i++) {
      end(`s${i}`);
      if (i % 50 === 49) await tick();
    }
    await queue.flushSoon(1000);
    return queue.stats();
  }

  it('control: drops nothing with a healthy exporter when the batch fits in the queue', async () => {
    expect(await steadyTraffic({ maxQueueSize: 100, maxExportBatchSize: 50 })).toEqual({ queued: 0, exported: 500, dropped: 0, failedExports: 0 });
  });

  // AFTERSTOP_MAX_QUEUE_SIZE=100 with the default batch size (512) and delay (1000 ms).
  it('drops nothing with a healthy exporter when maxQueueSize is below maxExportBatchSize', async () => {
    expect(await steadyTraffic({ maxQueueSize: 100, maxExportBatchSize: 512 })).toEqual({ queued: 0, exported: 500, dropped: 0, failedExports: 0 });
  });

  // In a child process: if the queue spins, it starves the event loop, and only a kill ends it.
  it('does not hang the app when maxExportBatchSize is 0', async () => {
    const dir = tempDir();
    try {
      const script = `
        import { setup, startRun, exportStats, shutdown } from ${JSON.stringify(distModule('instrumentation/index.js'))};
        setup({ exporter: 'file', tracesDir: ${JSON.stringify(dir)}, maxExportBatchSize: 0 });
        const run = startRun({ agentName: 'zero' });
        run.end();
        await new Promise((resolve) => setTimeout(resolve, 50));
        console.log(JSON.stringify(exportStats()));
        await shutdown();
        console.log('shut down');
      `;
      const result = await runModule(script, { cwd: dir, timeoutMs: 5000 });
      expect(result.timedOut, 'the child spun until killed').toBe(false);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('shut down');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
