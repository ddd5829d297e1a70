import { afterEach, describe, expect, it } from 'vitest';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { BoundedBatchSpanProcessor, type QueueOptions } from '../../export/queue.js';
import type { DeferredMarker } from '../../internal-types.js';
import { TestExporter } from '../../../test/helpers/test-exporter.js';

const defaults: QueueOptions = { maxQueueSize: 100, maxExportBatchSize: 50, scheduledDelayMs: 60_000, exportTimeoutMs: 60_000 };

const providers: BasicTracerProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.shutdown().catch(() => {});
});

/** A real SDK provider whose one span processor is the queue under test (spans of afterstop's tracer), and markers that end a span when written. */
function setup(options: Partial<QueueOptions> = {}) {
  const exporter = new TestExporter('ok');
  const queue = new BoundedBatchSpanProcessor(exporter, { ...defaults, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [queue] });
  providers.push(provider);
  const tracer = provider.getTracer('afterstop');
  const end = (name: string, attributes: Record<string, string> = {}): void => tracer.startSpan(name, { attributes }).end();
  let writes = 0;
  const marker = (name: string): DeferredMarker => ({
    writeDeferred: () => {
      writes++;
      end(name);
    },
  });
  return { exporter, queue, end, marker, writes: () => writes };
}

describe('deferred markers', () => {
  it('a marker still open at an export is written into that export, once', async () => {
    const { exporter, queue, end, marker, writes } = setup();
    const open = queue.defer(marker('afterstop.tool.start open'));
    expect(open).toBeDefined();
    end('execute_tool other');
    // A deferred marker counts as waiting: the exit hook and the flush see it.
    expect(queue.stats().queued).toBe(2);
    await queue.flushSoon(1000);
    expect(exporter.exportedNames().sort()).toEqual(['afterstop.tool.start open', 'execute_tool other']);
    // Closing it later changes nothing: it was written.
    expect(queue.withdraw(open!)).toBe(false);
    await queue.flushSoon(1000);
    expect(writes()).toBe(1);
    expect(queue.stats()).toMatchObject({ queued: 0, exported: 2, dropped: 0 });
  });

  it('a marker withdrawn before the export is never written', async () => {
    const { exporter, queue, end, marker, writes } = setup();
    const closed = queue.defer(marker('afterstop.tool.start closed'))!;
    expect(queue.withdraw(closed)).toBe(true);
    // Withdrawn once: a second withdraw finds nothing waiting.
    expect(queue.withdraw(closed)).toBe(false);
    end('execute_tool closed');
    await queue.flushSoon(1000);
    expect(exporter.exportedNames()).toEqual(['execute_tool closed']);
    expect(writes()).toBe(0);
  });

  it('a deferred marker alone arms the timer: it goes out with no span queued and nobody flushing', async () => {
    const { exporter, queue, marker } = setup({ scheduledDelayMs: 20 });
    queue.defer(marker('afterstop.tool.start hung'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(exporter.exportedNames()).toEqual(['afterstop.tool.start hung']);
  });

  it('the synchronous write at exit writes the deferred markers', () => {
    const { exporter, queue, end, marker } = setup();
    queue.defer(marker('afterstop.tool.start at-exit'));
    end('invoke_agent r');
    queue.flushSync();
    expect(
      exporter.syncBatches
        .flat()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['afterstop.tool.start at-exit', 'invoke_agent r']);
    expect(queue.stats().queued).toBe(0);
  });

  it("a deferred marker that writes nothing (an unsampled run's) leaves no empty export behind", async () => {
    const { exporter, queue } = setup();
    queue.defer({ writeDeferred: () => {} });
    await queue.flushSoon(1000);
    queue.defer({ writeDeferred: () => {} });
    queue.flushSync();
    expect(exporter.batches).toEqual([]);
    expect(exporter.syncBatches).toEqual([]);
    expect(queue.stats().queued).toBe(0);
  });

  it('a marker that throws when written is reported, and the others are still written', async () => {
    const { exporter, queue, marker } = setup();
    queue.defer({
      writeDeferred: () => {
        throw new Error('hostile');
      },
    });
    queue.defer(marker('afterstop.tool.start fine'));
    await queue.flushSoon(1000);
    expect(exporter.exportedNames()).toEqual(['afterstop.tool.start fine']);
  });

  it('after shutdown nothing is deferred: the caller writes the marker itself', async () => {
    const { queue, marker } = setup();
    await queue.shutdown();
    expect(queue.defer(marker('afterstop.tool.start late'))).toBeUndefined();
  });

  it('many calls deferred and withdrawn between exports: the open ones are written, the list stays bounded', async () => {
    const { exporter, queue, marker, writes } = setup();
    const held: ReturnType<typeof queue.defer>[] = [];
    for (let i = 0; i < 10_000; i++) {
      const entry = queue.defer(marker(`afterstop.tool.start c${i}`))!;
      // Every thousandth call is still open at the export; the others ended first.
      if (i % 1000 === 0) held.push(entry);
      else queue.withdraw(entry);
    }
    expect(queue.stats().queued).toBe(10);
    // Withdrawn entries are swept: the list is within twice what is open, or the sweep threshold.
    expect((queue as unknown as { deferred: { entries: unknown[] } }).deferred.entries.length).toBeLessThanOrEqual(1024);
    await queue.flushSoon(1000);
    expect(writes()).toBe(10);
    expect(exporter.exportedNames().sort()).toEqual(held.map((_, k) => `afterstop.tool.start c${k * 1000}`).sort());
  });

  it("a full queue keeps afterstop's tool spans with the markers: they stand for start markers never written", () => {
    const { exporter, queue, end } = setup({ maxQueueSize: 4, maxExportBatchSize: 1000 });
    exporter.mode = 'hang';
    end('execute_tool mine', { 'afterstop.tool.effect': 'irreversible' });
    for (let i = 0; i < 6; i++) end(`chat m${i}`);
    queue.flushSync();
    const kept = exporter.syncBatches.flat().map((s) => s.name);
    expect(kept).toContain('execute_tool mine');
    expect(kept).toHaveLength(4);
  });
});
