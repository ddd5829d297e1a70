import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SyncCapableExporter } from '../../instrumentation/export/sync-capable-exporter.js';

export type ExporterMode = 'ok' | 'fail' | 'throw' | 'hang';

/**
 * A span exporter under the test's control: it answers at once (`ok`),
 * fails, throws, or never answers until the test calls a pending callback
 * (`hang`). It records every batch, async and sync.
 */
export class TestExporter implements SyncCapableExporter {
  /** Every batch handed to `export`, in order. */
  readonly batches: ReadableSpan[][] = [];
  /** Callbacks of exports that hang, oldest first. */
  readonly pending: ((result: ExportResult) => void)[] = [];
  readonly syncBatches: ReadableSpan[][] = [];
  syncResult = true;
  shutdownCalls = 0;
  /** Set by the test around span.end(): an export seen while it is true ran on the caller's stack. */
  insideEnd = false;
  calledInsideEnd = 0;

  constructor(public mode: ExporterMode) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.insideEnd) this.calledInsideEnd++;
    this.batches.push(spans);
    if (this.mode === 'ok') done({ code: ExportResultCode.SUCCESS });
    else if (this.mode === 'fail') done({ code: ExportResultCode.FAILED, error: new Error('collector down') });
    else if (this.mode === 'throw') throw new Error('exporter blew up');
    else this.pending.push(done);
  }

  exportSync(spans: ReadableSpan[]): boolean {
    this.syncBatches.push(spans);
    return this.syncResult;
  }

  async shutdown(): Promise<void> {
    this.shutdownCalls++;
  }

  /** Answer every hanging export with success, and answer later ones at once. */
  release(): void {
    this.mode = 'ok';
    for (const done of this.pending.splice(0)) done({ code: ExportResultCode.SUCCESS });
  }

  exportedNames(): string[] {
    return this.batches.flat().map((s) => s.name);
  }
}
