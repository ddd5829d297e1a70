import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExportResultCode, type ExportResult } from '../otel-compat.js';
import type { ReadableSpan } from '../provider/sdk-types.js';
import { say } from '../safe.js';
import type { SyncCapableExporter } from './sync-capable-exporter.js';
import { isStop } from './span-queue.js';
import { traceRequestPieces, utf8 } from './otlp-json-encoder.js';

export interface FileExporterOptions {
  /** Folder the trace files go to; created when missing. */
  dir: string;
  /** Rotate when the next line would make the file larger than this. */
  maxFileBytes: number;
  /**
   * Serialised lines that may wait for a slow disk. Default 16 MiB. A line that holds a Stop marker is
   * queued past it: those are bounded by the span queue's Stop reserve (span-queue.ts).
   */
  maxPendingBytes?: number;
}

/** On a write error: part of the line went into the file (it must not be written to again). */
const PARTIAL = Symbol('afterstop.partialWrite');

function writeAsync(fd: number, buffer: Buffer, offset: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.write(fd, buffer, offset, buffer.length - offset, null, (error, written) => (error ? reject(error) : resolve(written)));
  });
}

/**
 * Writes spans as OTLP/JSON lines: one `ExportTraceServiceRequest` per line,
 * the OpenTelemetry Collector file exporter's format, so that the analyzer
 * reads both the same way.
 *
 * Each process writes its own files, `afterstop-<start time>-<pid>-<nnnn>.jsonl`,
 * so that two processes never interleave lines. An export reports success
 * only once its line is with the kernel: a process killed at any moment after
 * that leaves every complete line readable (a kill during a write can leave
 * at most the last line cut short, which a reader reports and skips).
 */
export class FileSpanExporter implements SyncCapableExporter {
  /** Lines are queued in call order and bounded by maxPendingBytes: an export may come while another runs. */
  readonly acceptsConcurrentExports = true;
  /**
   * Exports (lines) a burst may have handed at once: the queue hands a batch only while its slices would
   * fit (queue.ts canHandOff), some 33 batches, about 13 MB of lines at 760 bytes a span, within the pending limit. A batch's
   * slices reach the exporter a macrotask apart: `hasRoom` alone does not see those not yet come.
   */
  readonly maxConcurrentExports = 320;
  private fd: number | undefined;
  private size = 0;
  private sequence = 0;
  private readonly stem: string;
  private isShutdown = false;
  /** Lines serialised and waiting for the disk, in order. */
  private readonly pending: { line: Buffer; done: (result: ExportResult) => void }[] = [];
  private pendingBytes = 0;
  private pumping = false;
  private inFlight: { line: Buffer; done: (result: ExportResult) => void } | undefined;
  private idle: Promise<void> = Promise.resolve();
  private readonly maxPendingBytes: number;
  /** Writes are failing (said once on stderr until they resume), how many times they started to, and whether the next line goes to the file that failed. */
  private failing = false;
  private reopenSame = false;

  constructor(private readonly options: FileExporterOptions) {
    this.maxPendingBytes = options.maxPendingBytes ?? 16 * 1024 * 1024;
    const started = new Date().toISOString().replace(/[:.]/g, '-');
    this.stem = `afterstop-${started}-${process.pid}`;
  }

  /** Whether a batch may be handed now: lines waiting are within `maxPendingBytes` (the queue keeps its spans otherwise). */
  hasRoom(): boolean {
    return this.pendingBytes < this.maxPendingBytes;
  }

  /** The file being written now (undefined before the first export). */
  get currentFile(): string | undefined {
    return this.fd === undefined ? undefined : this.fileName(this.sequence);
  }

  /**
   * Serialises here, writes through libuv's thread pool: the event loop is not
   * held while the kernel takes the bytes. Lines are written in call order.
   * While the disk is slow, at most `maxPendingBytes` wait; beyond that an
   * export fails at once (its spans are counted as dropped), so memory stays
   * bounded, unless it holds a Stop marker (bounded by the queue's Stop reserve:
   * a burst of 10,000 Stops lost 5,103 of them to this limit).
   */
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.write(spans, undefined, resultCallback);
  }

  /** The same, the spans' OTLP/JSON encoded beforehand (slices.ts encodes it a few spans a macrotask). */
  exportEncoded(spans: ReadableSpan[], request: readonly string[], resultCallback: (result: ExportResult) => void): void {
    this.write(spans, request, resultCallback);
  }

  private write(spans: ReadableSpan[], request: readonly string[] | undefined, resultCallback: (result: ExportResult) => void): void {
    let line: Buffer | undefined;
    try {
      line = this.lineFor(spans, request);
    } catch (error) {
      resultCallback({ code: ExportResultCode.FAILED, error: error as Error });
      return;
    }
    if (line === undefined) {
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    if (this.pendingBytes + line.length > this.maxPendingBytes && this.pending.length > 0 && !spans.some(isStop)) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('trace file writes are stalled; line dropped') });
      return;
    }
    let called = false;
    const done = (result: ExportResult): void => {
      // Once: a line written again at exit may still complete in the thread pool.
      if (called) return;
      called = true;
      resultCallback(result);
    };
    this.pending.push({ line, done });
    this.pendingBytes += line.length;
    if (!this.pumping) void this.pump();
  }

  /**
   * The same, synchronously, for the last flush at process exit: first every
   * line still waiting for the thread pool, then these spans.
   */
  exportSync(spans: ReadableSpan[]): boolean {
    try {
      this.drainSync();
      const line = this.lineFor(spans);
      if (line !== undefined) this.writeSync(line);
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    }
  }

  /**
   * Write every waiting line now, synchronously (process exit). The line the
   * thread pool may be writing at this moment is written again: a span twice
   * is counted once by the analyzer, a span lost is lost.
   */
  drainSync(): void {
    const current = this.inFlight;
    if (current !== undefined) {
      this.inFlight = undefined;
      try {
        this.writeSync(current.line);
        current.done({ code: ExportResultCode.SUCCESS });
      } catch (error) {
        this.failed(error);
        current.done({ code: ExportResultCode.FAILED, error: error as Error });
      }
    }
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      this.pendingBytes -= next.line.length;
      try {
        this.writeSync(next.line);
        next.done({ code: ExportResultCode.SUCCESS });
      } catch (error) {
        this.failed(error);
        next.done({ code: ExportResultCode.FAILED, error: error as Error });
      }
    }
  }

  async forceFlush(): Promise<void> {
    await this.idle;
  }

  async shutdown(): Promise<void> {
    this.isShutdown = true;
    await this.idle;
    this.close();
  }

  /** Write waiting lines one after the other, through the thread pool. */
  private async pump(): Promise<void> {
    this.pumping = true;
    let settle: () => void = () => {};
    this.idle = new Promise<void>((resolve) => (settle = resolve));
    try {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
        try {
          const fd = this.fileFor(next.line.length);
          const before = this.size;
          this.size += next.line.length;
          this.inFlight = next;
          let offset = 0;
          try {
            while (offset < next.line.length) offset += await writeAsync(fd, next.line, offset);
          } catch (error) {
            this.size = before;
            throw Object.assign(error as Error, { [PARTIAL]: offset > 0 });
          }
          this.inFlight = undefined;
          this.resumed();
          next.done({ code: ExportResultCode.SUCCESS });
        } catch (error) {
          this.inFlight = undefined;
          this.failed(error);
          next.done({ code: ExportResultCode.FAILED, error: error as Error });
        } finally {
          this.pendingBytes -= next.line.length;
        }
      }
    } finally {
      this.pumping = false;
      settle();
    }
  }

  private writeSync(line: Buffer): void {
    const fd = this.fileFor(line.length);
    let offset = 0;
    try {
      while (offset < line.length) offset += fs.writeSync(fd, line, offset, line.length - offset);
    } catch (error) {
      throw Object.assign(error as Error, { [PARTIAL]: offset > 0 });
    }
    this.size += line.length;
    this.resumed();
  }

  /** One OTLP/JSON line, or undefined when there is nothing to write. */
  private lineFor(spans: ReadableSpan[], encoded?: readonly string[]): Buffer | undefined {
    if (this.isShutdown) throw new Error('file exporter is shut down');
    if (spans.length === 0) return undefined;
    return utf8(encoded ?? traceRequestPieces(spans), '\n');
  }

  /**
   * A write failed (disk full, folder removed). Said once on stderr, and once more when writing resumes.
   * The file is closed and the next line opens the same file again (the disk may have room by then): a
   * full disk left a new empty trace file per failed write (596 of them). Only a write that left part of
   * its line in the file moves on to a new file, so that later lines stay readable.
   */
  private failed(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
    if (!this.failing) {
      this.failing = true;
      say(`cannot write trace files in ${this.options.dir} (${code}); spans are counted as dropped until writing resumes`);
    }
    if ((error as { [PARTIAL]?: boolean } | undefined)?.[PARTIAL] !== true) this.reopenSame = true;
    this.close();
  }

  /** A line was written: writing resumed after a failure, if there was one. */
  private resumed(): void {
    if (!this.failing) return;
    this.failing = false;
    say(`trace files are written again in ${this.options.dir}`);
  }

  private fileFor(bytes: number): number {
    if (this.fd !== undefined && this.size > 0 && this.size + bytes > this.options.maxFileBytes) {
      this.close();
      this.reopenSame = false;
    }
    if (this.fd === undefined) {
      fs.mkdirSync(this.options.dir, { recursive: true });
      // After a failed write that left nothing in it, the same file again (unless rotation closed it).
      if (!this.reopenSame || this.sequence === 0) this.sequence++;
      this.reopenSame = false;
      this.fd = fs.openSync(this.fileName(this.sequence), 'a');
      this.size = fs.fstatSync(this.fd).size;
    }
    return this.fd;
  }

  private fileName(sequence: number): string {
    // Zero-padded, so that sorting the names sorts the files in writing order.
    return path.join(this.options.dir, `${this.stem}-${String(sequence).padStart(4, '0')}.jsonl`);
  }

  private close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fs.closeSync(fd);
    } catch {
      // already closed or the disk is gone; nothing to keep
    }
  }
}
