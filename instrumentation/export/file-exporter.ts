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

/**
 * Writes spans as OTLP/JSON lines: one `ExportTraceServiceRequest` per line,
 * the OpenTelemetry Collector file exporter's format, so that the analyzer
 * reads both the same way.
 *
 * Each process writes its own files, `afterstop-<start time>-<pid>-<nnnn>.jsonl`,
 * so that two processes never interleave lines. Each line goes to the kernel
 * in one `write` before the export reports success: a process killed at any
 * moment after that leaves every complete line readable.
 */
export class FileSpanExporter implements SyncCapableExporter {
  private fd: number | undefined;
  private size = 0;
  private sequence = 0;
  private readonly stem: string;
  private isShutdown = false;

  constructor(private readonly options: FileExporterOptions) {
    const started = new Date().toISOString().replace(/[:.]/g, '-');
    this.stem = `afterstop-${started}-${process.pid}`;
  }

  /** The file being written now (undefined before the first export). */
  get currentFile(): string | undefined {
    return this.fd === undefined ? undefined : this.fileName(this.sequence);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    resultCallback(this.write(spans));
  }

  exportSync(spans: ReadableSpan[]): boolean {
    return this.write(spans).code === ExportResultCode.SUCCESS;
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.isShutdown = true;
    this.close();
  }

  private write(spans: ReadableSpan[]): ExportResult {
    if (this.isShutdown) return { code: ExportResultCode.FAILED, error: new Error('file exporter is shut down') };
    if (spans.length === 0) return { code: ExportResultCode.SUCCESS };
    try {
      const json = JsonTraceSerializer.serializeRequest(spans);
      if (json === undefined) throw new Error('OTLP/JSON serialisation returned nothing');
      const line = Buffer.allocUnsafe(json.length + 1);
      line.set(json, 0);
      line[json.length] = NEWLINE;
      const fd = this.fileFor(line.length);
      let offset = 0;
      while (offset < line.length) offset += fs.writeSync(fd, line, offset, line.length - offset);
      this.size += line.length;
      return { code: ExportResultCode.SUCCESS };
    } catch (error) {
      // A write error (disk full, folder removed) may leave the file mid-line:
      // start a new file next time so later lines stay readable.
      this.close();
      return { code: ExportResultCode.FAILED, error: error as Error };
    }
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
