import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { FileSpanExporter } from '../../export/file-exporter.js';
import { readOtlpJsonLines, readTraces } from '../../../analyzer/ingest/otlp-json.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const resource = resourceFromAttributes({ 'service.name': 'file-exporter-test', 'afterstop.schema.version': '0.1' });

/** A real SDK provider whose every ended span goes straight to `exporter`. */
function providerFor(exporter: FileSpanExporter): BasicTracerProvider {
  return new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
}

/** Ended SDK spans, made by a real provider and kept in memory. */
function makeSpans(count: number, prefix = 'span'): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('made');
  for (let i = 0; i < count; i++) tracer.startSpan(`${prefix} ${i}`, { attributes: { index: i } }).end();
  return memory.getFinishedSpans();
}

function exportNow(exporter: FileSpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** The trace files of `folder`, in the order they were written (by their sequence number). */
function jsonlFiles(folder: string): string[] {
  const sequence = (name: string): number => Number(/-(\d+)\.jsonl$/.exec(name)?.[1] ?? NaN);
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl'))
    .sort((a, b) => sequence(a) - sequence(b))
    .map((name) => path.join(folder, name));
}

function lines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

describe('FileSpanExporter with a real SDK tracer provider', () => {
  it('writes one valid ExportTraceServiceRequest line per export, readable with no skipped line', async () => {
    const exporter = new FileSpanExporter({ dir, maxFileBytes: 1024 * 1024 });
    const provider = providerFor(exporter);
    const tracer = provider.getTracer('afterstop-test', '1.2.3');
    const parent = tracer.startSpan('parent');
    const ctx = trace.setSpan(context.active(), parent);
    tracer.startSpan('child one', { attributes: { 'gen_ai.tool.name': 'search', count: 3, ok: true } }, ctx).end();
    tracer.startSpan('child two', {}, ctx).end();
    parent.end();
    await provider.forceFlush();

    const files = jsonlFiles(dir);
    expect(files).toHaveLength(1);
    const file = files[0]!;
    expect(path.basename(file)).toMatch(new RegExp(`^afterstop-.+-${process.pid}-0001\\.jsonl$`));
    expect(exporter.currentFile).toBe(file);
    expect(fs.readFileSync(file, 'utf8').endsWith('\n')).toBe(true);

    const raw = lines(file);
    expect(raw).toHaveLength(3); // SimpleSpanProcessor: one export, so one line, per span
    for (const line of raw) {
      const request = JSON.parse(line) as { resourceSpans: any[] };
      expect(Array.isArray(request.resourceSpans)).toBe(true);
      expect(request.resourceSpans).toHaveLength(1);
      const rs = request.resourceSpans[0];
      const resourceKeys = (rs.resource.attributes as { key: string }[]).map((a) => a.key);
      expect(resourceKeys).toContain('service.name');
      expect(rs.scopeSpans).toHaveLength(1);
      expect(rs.scopeSpans[0].scope).toMatchObject({ name: 'afterstop-test', version: '1.2.3' });
      const spans = rs.scopeSpans[0].spans as any[];
      expect(spans).toHaveLength(1);
      const span = spans[0];
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(typeof span.startTimeUnixNano).toBe('string');
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(span.endTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }

    const read = await readOtlpJsonLines(file);
    expect(read.skipped).toEqual([]);
    expect(read.lines).toBe(3);
    expect(read.spans.map((s) => s.name)).toEqual(['child one', 'child two', 'parent']);
    const [one, two, top] = read.spans;
    expect(one!.parentSpanId).toBe(top!.spanId);
    expect(two!.parentSpanId).toBe(top!.spanId);
    expect(one!.traceId).toBe(top!.traceId);
    expect(one!.attributes).toMatchObject({ 'gen_ai.tool.name': 'search', count: 3, ok: true });
    expect(top!.resource['service.name']).toBe('file-exporter-test');
    expect(read.spans.map((s) => s.line)).toEqual([1, 2, 3]);
    await provider.shutdown();
  });

  it('writes a whole batch as one line', async () => {
    const exporter = new FileSpanExporter({ dir, maxFileBytes: 1024 * 1024 });
    expect((await exportNow(exporter, makeSpans(5))).code).toBe(ExportResultCode.SUCCESS);
    expect((await exportNow(exporter, makeSpans(2, 'second'))).code).toBe(ExportResultCode.SUCCESS);
    const files = jsonlFiles(dir);
    expect(files).toHaveLength(1);
    expect(lines(files[0]!)).toHaveLength(2);
    const read = await readOtlpJsonLines(files[0]!);
    expect(read.skipped).toEqual([]);
    expect(read.spans.filter((s) => s.line === 1)).toHaveLength(5);
    expect(read.spans.filter((s) => s.line === 2)).toHaveLength(2);
  });

  it('an empty export succeeds and writes nothing', async () => {
    const exporter = new FileSpanExporter({ dir, maxFileBytes: 1024 });
    expect((await exportNow(exporter, [])).code).toBe(ExportResultCode.SUCCESS);
    expect(jsonlFiles(dir)).toEqual([]);
  });
});

describe('rotation', () => {
  it('rotates into several files, none over the limit, and loses no span', async () => {
    const maxFileBytes = 3000;
    const exporter = new FileSpanExporter({ dir, maxFileBytes });
    const provider = providerFor(exporter);
    const tracer = provider.getTracer('rotation');
    const total = 60;
    for (let i = 0; i < total; i++) tracer.startSpan(`span ${i}`, { attributes: { index: i } }).end();
    await provider.forceFlush();

    const files = jsonlFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    files.forEach((file, i) => {
      expect(path.basename(file)).toMatch(new RegExp(`-${process.pid}-${String(i + 1).padStart(4, '0')}\\.jsonl$`));
      const size = fs.statSync(file).size;
      // Over the limit only when the file holds a single line bigger than the limit.
      if (size > maxFileBytes) expect(lines(file)).toHaveLength(1);
      else expect(size).toBeLessThanOrEqual(maxFileBytes);
    });
    const read = await readTraces(dir);
    expect(read.skipped).toEqual([]);
    const indices = read.spans.map((s) => s.attributes['index']).sort((a, b) => Number(a) - Number(b));
    expect(indices).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(new Set(read.spans.map((s) => s.spanId)).size).toBe(total);
    await provider.shutdown();
  });

  it('puts a line larger than the limit alone in its own file', async () => {
    const exporter = new FileSpanExporter({ dir, maxFileBytes: 100 });
    for (let i = 0; i < 4; i++) expect((await exportNow(exporter, makeSpans(1, `big ${i}`))).code).toBe(ExportResultCode.SUCCESS);
    const files = jsonlFiles(dir);
    expect(files).toHaveLength(4);
    for (const file of files) expect(lines(file)).toHaveLength(1);
    const read = await readTraces(dir);
    expect(read.skipped).toEqual([]);
    expect(read.spans.map((s) => s.name).sort()).toEqual(['big 0 0', 'big 1 0', 'big 2 0', 'big 3 0']);
  });
});

describe('write failures', () => {
  /** `dir` under a regular file: mkdir fails with ENOTDIR, even as root. */
  function blockedDir(): { target: string; blocker: string } {
    const blocker = path.join(dir, 'not-a-folder');
    fs.writeFileSync(blocker, 'in the way');
    return { target: path.join(blocker, 'traces'), blocker };
  }

  it('reports FAILED through the callback, never throws, and recovers when the fault is gone', async () => {
    const { target, blocker } = blockedDir();
    const exporter = new FileSpanExporter({ dir: target, maxFileBytes: 1024 * 1024 });
    const results: ExportResult[] = [];
    let called!: () => void;
    const callback = new Promise<void>((resolve) => (called = resolve));
    expect(() =>
      exporter.export(makeSpans(2, 'lost'), (r) => {
        results.push(r);
        called();
      }),
    ).not.toThrow();
    await callback;
    expect(results).toHaveLength(1);
    expect(results[0]!.code).toBe(ExportResultCode.FAILED);
    expect((results[0]!.error as NodeJS.ErrnoException | undefined)?.code).toBe('ENOTDIR');
    expect(exporter.currentFile).toBeUndefined();

    // Through a real SDK provider too: span.end() does not throw; the SDK's
    // SimpleSpanProcessor surfaces the exporter's FAILED result on forceFlush.
    const provider = providerFor(exporter);
    expect(() => provider.getTracer('t').startSpan('also lost').end()).not.toThrow();
    const flushed = await provider.forceFlush().then(
      () => 'resolved',
      (error: unknown) => String(Array.isArray(error) ? error[0] : error),
    );
    expect(flushed).toMatch(/ENOTDIR/);

    fs.rmSync(blocker);
    const recovered = await exportNow(exporter, makeSpans(3, 'kept'));
    expect(recovered.code).toBe(ExportResultCode.SUCCESS);
    expect(exporter.currentFile).toBeDefined();
    const read = await readTraces(target);
    expect(read.skipped).toEqual([]);
    expect(read.spans.map((s) => s.name)).toEqual(['kept 0', 'kept 1', 'kept 2']);
    await provider.shutdown();
  });

  it('exportSync returns false on failure and true on success', async () => {
    const { target, blocker } = blockedDir();
    const exporter = new FileSpanExporter({ dir: target, maxFileBytes: 1024 * 1024 });
    let ok: boolean | undefined;
    expect(() => (ok = exporter.exportSync(makeSpans(1, 'lost')))).not.toThrow();
    expect(ok).toBe(false);
    fs.rmSync(blocker);
    expect(exporter.exportSync(makeSpans(2, 'sync'))).toBe(true);
    const read = await readTraces(target);
    expect(read.skipped).toEqual([]);
    expect(read.spans.map((s) => s.name)).toEqual(['sync 0', 'sync 1']);
  });

  it('refuses to write after shutdown, without throwing', async () => {
    const exporter = new FileSpanExporter({ dir, maxFileBytes: 1024 * 1024 });
    expect(exporter.exportSync(makeSpans(1, 'before'))).toBe(true);
    await exporter.shutdown();
    expect((await exportNow(exporter, makeSpans(1, 'after'))).code).toBe(ExportResultCode.FAILED);
    expect(exporter.exportSync(makeSpans(1, 'after sync'))).toBe(false);
    const read = await readTraces(dir);
    expect(read.spans.map((s) => s.name)).toEqual(['before 0']);
  });
});

describe('a stalled disk', () => {
  it('holds at most maxPendingBytes of lines, fails the rest at once, and writes them all on drainSync', async () => {
    const { createRequire, syncBuiltinESMExports } = await import('node:module');
    const cjsFs = createRequire(import.meta.url)('node:fs') as typeof fs;
    const realWrite = cjsFs.write;
    // A write that never completes: the thread pool is stuck on a hung mount.
    cjsFs.write = (() => {}) as unknown as typeof fs.write;
    syncBuiltinESMExports();
    try {
      const exporter = new FileSpanExporter({ dir, maxFileBytes: 1 << 30, maxPendingBytes: 20_000 });
      const results: ExportResult[] = [];
      for (let i = 0; i < 50; i++) exporter.export(makeSpans(5, `batch ${i}`), (r) => results.push(r));
      const failed = results.filter((r) => r.code === ExportResultCode.FAILED);
      expect(failed.length).toBeGreaterThan(30);
      expect(failed[0]!.error?.message).toMatch(/stalled/);
      const waiting = 50 - failed.length;
      expect(waiting).toBeGreaterThan(1);
      // At exit the waiting lines (and the one in flight) are written synchronously.
      exporter.drainSync();
      expect(results.filter((r) => r.code === ExportResultCode.SUCCESS)).toHaveLength(waiting);
      const read = await readTraces(dir);
      expect(read.skipped).toEqual([]);
      expect(new Set(read.spans.map((s) => s.name.replace(/ \d+$/, ''))).size).toBe(waiting);
    } finally {
      cjsFs.write = realWrite;
      syncBuiltinESMExports();
    }
  });
});
