import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SyncCapableExporter } from './queue.js';

export interface FileExporterOptions {
  /** Folder the trace files go to; created when missing. */
  dir: string;
  /** Rotate when the next line would make the file larger than this. */
  maxFileBytes: number;
}

const NEWLINE = 0x0a;

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
  private fd: number | undefined;
  private size = 0;
  private sequence = 0;
  private readonly stem: string;
  private isShutdown = false;
  /** The last write queued: writes happen one after the other. */
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly options: FileExporterOptions) {
    const started = new Date().toISOString().replace(/[:.]/g, '-');
    this.stem = `afterstop-${started}-${process.pid}`;
  }

  /** The file being written now (undefined before the first export). */
  get currentFile(): string | undefined {
    return this.fd === undefined ? undefined : this.fileName(this.sequence);
  }

  /**
   * Serialises here, writes through libuv's thread pool: the event loop is not
   * held while the kernel takes the bytes. Lines are written in call order.
   */
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    let line: Buffer | undefined;
    try {
      line = this.lineFor(spans);
    } catch (error) {
      resultCallback({ code: ExportResultCode.FAILED, error: error as Error });
      return;
    }
    const bytes = line;
    this.tail = this.tail
      .then(() => (bytes === undefined ? undefined : this.writeLine(bytes)))
      .then(
        () => resultCallback({ code: ExportResultCode.SUCCESS }),
        (error: unknown) => {
          this.failed();
          resultCallback({ code: ExportResultCode.FAILED, error: error as Error });
        },
      );
  }

  /** The same, synchronously: for the last flush at process exit. */
  exportSync(spans: ReadableSpan[]): boolean {
    try {
      const line = this.lineFor(spans);
      if (line === undefined) return true;
      const fd = this.fileFor(line.length);
      let offset = 0;
      while (offset < line.length) offset += fs.writeSync(fd, line, offset, line.length - offset);
      this.size += line.length;
      return true;
    } catch {
      this.failed();
      return false;
    }
  }

  async forceFlush(): Promise<void> {
    await this.tail;
  }

  async shutdown(): Promise<void> {
    this.isShutdown = true;
    await this.tail;
    this.close();
  }

  /** One OTLP/JSON line, or undefined when there is nothing to write. */
  private lineFor(spans: ReadableSpan[]): Buffer | undefined {
    if (this.isShutdown) throw new Error('file exporter is shut down');
    if (spans.length === 0) return undefined;
    const json = JsonTraceSerializer.serializeRequest(spans);
    if (json === undefined) throw new Error('OTLP/JSON serialisation returned nothing');
    const line = Buffer.allocUnsafe(json.length + 1);
    line.set(json, 0);
    line[json.length] = NEWLINE;
    return line;
  }

  private async writeLine(line: Buffer): Promise<void> {
    const fd = this.fileFor(line.length);
    this.size += line.length;
    let offset = 0;
    while (offset < line.length) offset += await writeAsync(fd, line, offset);
  }

  /**
   * A write error (disk full, folder removed) may leave the file mid-line:
   * start a new file next time so that later lines stay readable.
   */
  private failed(): void {
    this.close();
  }

  private fileFor(bytes: number): number {
    if (this.fd !== undefined && this.size > 0 && this.size + bytes > this.options.maxFileBytes) {
      this.close();
    }
    if (this.fd === undefined) {
      fs.mkdirSync(this.options.dir, { recursive: true });
      this.sequence++;
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
