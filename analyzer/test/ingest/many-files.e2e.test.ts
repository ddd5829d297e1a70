import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, ingestInto } from '../../analyze.js';
import { discoverTraceFiles, traceFileBatches } from '../../ingest/discover.js';
import { FILE_BATCH, MAX_SKIPPED_HELD } from '../../ingest/ingest.js';
import { MAX_SKIPPED_LISTED } from '../../report.js';

/**
 * Many small trace files (a collector writing a file per export): listed, checked and read in batches of
 * FILE_BATCH, so that what is held per file is a batch's, whatever their number (the memory at 20,000 and
 * 200,000 files is bench/large-inputs.ts's). The report and the ingest's summary count every file and every
 * skipped line, and list only the first of them.
 */
const FILES = 2 * FILE_BATCH + 1_500;
/** In each of the files 7, 5,007 and 10,007. */
const BAD_LINES = 500;
const BAD = 3 * BAD_LINES;
let dir: string;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const line = (i: number): string =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'many' } }] },
        scopeSpans: [
          {
            scope: { name: 'afterstop' },
            spans: [
              {
                traceId: hex(i + 1, 32),
                spanId: hex(i + 1, 16),
                parentSpanId: '',
                name: 'invoke_agent a',
                kind: 1,
                startTimeUnixNano: String(1_790_000_000_000_000_000n + BigInt(i) * 1_000_000n),
                endTimeUnixNano: String(1_790_000_000_000_000_000n + BigInt(i) * 1_000_000n + 5n),
                attributes: [
                  { key: 'afterstop.run.id', value: { stringValue: hex(i + 1, 16) } },
                  { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                ],
                status: {},
              },
            ],
          },
        ],
      },
    ],
  });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-many-files-'));
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `d${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) fs.mkdirSync(sub);
    // Three files have 500 lines that are not JSON after their span: each named, the span read.
    fs.writeFileSync(path.join(sub, `t${i}.jsonl`), `${line(i)}\n${i % 5_000 === 7 ? '{not json\n'.repeat(BAD_LINES) : ''}`);
  }
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe(`${FILES.toLocaleString('en-US')} one-span files`, () => {
  it('are listed in batches, each file once, whatever inputs name it twice', async () => {
    const sizes: number[] = [];
    const seen = new Set<string>();
    // The folder, a file in it, and a folder inside it: each file once.
    for await (const batch of await traceFileBatches([dir, path.join(dir, 'd0', 't5.jsonl'), path.join(dir, 'd1')], FILE_BATCH)) {
      sizes.push(batch.length);
      for (const f of batch) seen.add(f.path);
    }
    expect(Math.max(...sizes)).toBe(FILE_BATCH);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(FILES);
    expect(seen.size).toBe(FILES);
    const listed = await discoverTraceFiles([path.join(dir, 'd0', 't5.jsonl'), dir]);
    expect(listed).toHaveLength(FILES);
    expect(listed.map((f) => f.path)).toEqual([...listed.map((f) => f.path)].sort());
  });

  it('the ingest holds at most MAX_SKIPPED_HELD skipped lines, and counts them all', async () => {
    const summary = await ingestInto({ inputs: [dir], db: ':memory:' });
    expect(summary.skippedCount).toBe(BAD);
    expect(summary.skipped).toHaveLength(MAX_SKIPPED_HELD);
  }, 600_000);

  it('give a report that counts every file, span and skipped line, and lists the first skipped lines only', async () => {
    const db = path.join(dir, '..', `${path.basename(dir)}-store`);
    try {
      const report = await analyze({ inputs: [dir], db });
      expect(report.input).toMatchObject({ paths: [dir], files: FILES, files_read: FILES, spans_read: FILES, spans_added: FILES, spans_in_store: FILES, skipped_count: BAD });
      expect(report.totals.runs).toBe(FILES);
      expect(report.input.skipped).toHaveLength(MAX_SKIPPED_LISTED);
      expect(report.input.skipped[0]).toMatchObject({ line: 2, reason: expect.stringMatching(/^not JSON/) });
      // Each file recorded as read: the next ingest reads none, and the skipped lines stay the files'.
      const again = await ingestInto({ inputs: [dir], db });
      expect(again).toMatchObject({ files: FILES, read: 0, spansInStore: FILES, skippedCount: 0 });
      expect(Object.keys(again)).not.toContain('paths');
      const report2 = await analyze({ inputs: [dir], db });
      expect(report2.input.skipped_count).toBe(BAD);
      // A new file among them: read alone.
      fs.writeFileSync(path.join(dir, 'd0', 'new.jsonl'), `${line(FILES)}\n{bad\n`);
      const grown = await ingestInto({ inputs: [dir], db });
      expect(grown).toMatchObject({ files: FILES + 1, read: 1, spansAdded: 1, skippedCount: 1 });
      expect(grown.skipped).toHaveLength(1);
    } finally {
      fs.rmSync(db, { recursive: true, force: true });
    }
  }, 600_000);
});
