import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { sanitizeFile } from '../../ingest/sanitize.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * The careful path holds one line at a time and writes a long line's spans as
 * several clean lines: DuckDB's reader buffers twice the longest line per
 * thread, so a 200 MB line written back whole could not be stored (0 spans).
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-sanitize-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the careful path', () => {
  it('writes a line of 40,000 spans (24 MB, past the fast path’s 16 MiB) as clean lines of about 4 MiB; every span stored', async () => {
    const t = traces();
    for (let i = 0; i < 10_000; i++) {
      const r = t.run({ service: 'long-line', startMs: i, endMs: i + 900, outcome: 'cancelled', attrs: { 'app.note': 'n'.repeat(300) } });
      r.cancelRequest(i + 100);
      r.tool({ name: 'send_email', callId: `c${i}`, startMs: i + 50, endMs: i + 400, effect: 'irreversible' });
    }
    // All the builder's lines made one request, as a Collector batch of 40,000 spans.
    const requests = t.toLines().map((l) => JSON.parse(l) as { resourceSpans: unknown[] });
    const one = JSON.stringify({ resourceSpans: requests.flatMap((r) => r.resourceSpans) });
    expect(one.length).toBeGreaterThan(16 * 1024 * 1024);
    const file = path.join(dir, 'long.jsonl');
    fs.writeFileSync(file, `${one}\n`);

    const written: string[] = [];
    const stat = fs.statSync(file);
    const result = await sanitizeFile({ path: file, size: stat.size, mtimeMs: stat.mtimeMs, compression: 'none', format: 'otlp-json' }, (line) => written.push(line));
    expect(result).toMatchObject({ skipped: [], spans: 40_000, lines: written.length });
    expect(written.length).toBeGreaterThan(4);
    for (const line of written) expect(line.length).toBeLessThan(4 * 1024 * 1024 + 2_000);
    const spans = written.flatMap((l) => (JSON.parse(l) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] }).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    expect(spans).toHaveLength(40_000);

    const report = await analyze({ inputs: [file], db: ':memory:' });
    expect(report.input).toMatchObject({ spans_read: 40_000, spans_added: 40_000, skipped: [] });
    expect(report.totals.runs).toBe(10_000);
  });
});
