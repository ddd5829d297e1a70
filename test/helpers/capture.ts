import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTraces, type FlatSpan } from '../../analyzer/index.js';
import { flush, setup, shutdown } from '../../instrumentation/index.js';

/**
 * afterstop's real pipeline writing to a temporary folder, read back through
 * the analyzer's reader: what a test sees is what the file holds.
 */
export interface TraceCapture {
  dir: string;
  /** Flush, read every file, fail on an unreadable line; spans of `runId` only when given. */
  spans(runId?: string): Promise<FlatSpan[]>;
  close(): Promise<void>;
}

export function captureTraces(config: Parameters<typeof setup>[0] = {}): TraceCapture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-test-'));
  setup({ tracesDir: dir, serviceName: 'afterstop-test', scheduledDelayMs: 20, ...config });
  return {
    dir,
    async spans(runId?: string) {
      await flush(5000);
      const read = await readTraces(dir);
      if (read.skipped.length > 0) throw new Error(`unreadable trace lines: ${JSON.stringify(read.skipped)}`);
      return runId === undefined ? read.spans : read.spans.filter((s) => s.attributes['afterstop.run.id'] === runId);
    },
    async close() {
      await shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The one span called `name`; fails when there are none or several. */
export function only(spans: FlatSpan[], name: string): FlatSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one ${name}, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

export function named(spans: FlatSpan[], name: string): FlatSpan[] {
  return spans.filter((s) => s.name === name);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
