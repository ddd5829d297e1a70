import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { compressionOf, type TraceFile } from '../../ingest/discover.js';
import { inflatesWithinBound, linesOf, maxInflatedBytes, maxInflation, maxLineBytes, openTraceFile } from '../../ingest/read-lines.js';

/**
 * Reading with bounds: a decompression bomb stops at its bound with the lines
 * before it kept and the rest named; a line too long to hold is counted, not held.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const g2 = fs.readFileSync(`${golden}g2-ghost-email.jsonl`, 'utf8');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bomb-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const MiB = 1024 * 1024;
/** The golden g2 lines, then 200 MiB of zeros without a line break: inflates past the 64 MiB floor of the bound. */
const bombText = Buffer.concat([Buffer.from(g2), Buffer.alloc(200 * MiB)]);
const traceFile = (file: string): TraceFile => {
  const stat = fs.statSync(file);
  return { path: file, size: stat.size, mtimeMs: stat.mtimeMs, compression: compressionOf(file), format: 'otlp-json' };
};
const clean = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: ':memory:' });
const lines = async (input: Readable, max?: number) => {
  const out = [];
  for await (const line of linesOf(input, max)) out.push(line);
  return out;
};

describe('decompression bombs', () => {
  const gzip = path.join(dir, 'bomb.jsonl.gz');
  fs.writeFileSync(gzip, gzipSync(bombText, { level: 1 }));
  const zstd = path.join(dir, 'bomb.jsonl.zst');
  const made = spawnSync('zstd', ['-q', '-3', '-o', zstd], { input: bombText });
  expect(made.status, made.stderr?.toString()).toBe(0);

  for (const [kind, file] of [
    ['gzip', gzip],
    ['zstd', zstd],
  ] as const) {
    it(`${kind}: reading stops at the bound; the lines before it are kept, the rest is named`, async () => {
      const f = traceFile(file);
      expect(f.compression).toBe(kind);
      expect(f.size).toBeLessThan(1 * MiB);
      expect(await inflatesWithinBound(f)).toBe(false);
      const opened = openTraceFile(f);
      let bytes = 0;
      for await (const chunk of opened.stream) bytes += (chunk as Buffer).length;
      // Inflated exactly to the bound, not past it (200 MiB would follow).
      expect(bytes).toBe(maxInflatedBytes(f));
      expect(opened.cut()?.message).toMatch(/^it inflates to more than \d+\.\d MiB from 0\.\d MiB .*a decompression bomb\?\); the rest is not read/);

      const report = await analyze({ inputs: [file], db: ':memory:' });
      const whole = g2.split('\n').filter(Boolean).length;
      expect(report.input.spans_added).toBe(clean.input.spans_added);
      expect(report.input.skipped).toEqual([{ file, line: whole + 1, reason: expect.stringMatching(/^cannot be read further: it inflates to more than/) }]);
      expect(report.totals).toEqual(clean.totals);
    });
  }

  it('a file within its bound goes to the fast path; the ratio allowed is AFTERSTOP_MAX_INFLATION (at least 1), else 100', async () => {
    const small = path.join(dir, 'small.jsonl.gz');
    fs.writeFileSync(small, gzipSync(Buffer.from(g2)));
    expect(await inflatesWithinBound(traceFile(small))).toBe(true);
    expect(maxInflation({})).toBe(100);
    expect(maxInflation({ AFTERSTOP_MAX_INFLATION: '2000' })).toBe(2000);
    expect(maxInflation({ AFTERSTOP_MAX_INFLATION: '0' })).toBe(100);
    expect(maxInflation({ AFTERSTOP_MAX_INFLATION: 'lots' })).toBe(100);
    expect(maxInflatedBytes({ size: 10 * MiB }, 100)).toBe(1000 * MiB);
    expect(maxInflatedBytes({ size: 1 }, 100)).toBe(64 * MiB);
  });
});

describe('lines', () => {
  it('split on LF only, a CR before it dropped; a line past the limit is counted, not held, and the next is read', async () => {
    const input = Readable.from(['a\r\nb\rc\n', 'x'.repeat(30), 'y'.repeat(30), '\nlast']);
    expect(await lines(input, 50)).toEqual([{ text: 'a' }, { text: 'b\rc' }, { tooLong: 60 }, { text: 'last' }]);
  });

  it('a line of 64 MiB in a thousand chunks is one line, whole', async () => {
    const chunk = 'z'.repeat(64 * 1024);
    const input = Readable.from(
      (function* () {
        for (let i = 0; i < 1024; i++) yield chunk;
        yield '\n';
      })(),
    );
    const [only] = await lines(input, 64 * MiB);
    expect(only).toEqual({ text: expect.any(String) });
    expect((only as { text: string }).text.length).toBe(64 * MiB);
  });
});

/** Write `file` as streams do, a MiB at a time: the g2 lines with, as line 2, a valid OTLP/JSON line of `mib` MiB (one span, one long attribute). */
async function withLongLine(file: string, mib: number): Promise<void> {
  const [first, ...rest] = g2.split('\n').filter((l) => l !== '');
  const out = fs.createWriteStream(file);
  const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)));
  await write(`${first}\n`);
  await write(
    '{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"big"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"big","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"blob","value":{"stringValue":"',
  );
  const chunk = 'x'.repeat(MiB);
  for (let i = 0; i < mib; i++) await write(chunk);
  await write('"}}]}]}]}]}\n');
  for (const line of rest) await write(`${line}\n`);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

describe('a line too long among valid ones', () => {
  it('a 150 MiB line is named (file, line, size) and skipped without being held; the other lines give their report', async () => {
    const file = path.join(dir, 'long-line.jsonl');
    await withLongLine(file, 150);
    try {
      const report = await analyze({ inputs: [file], db: ':memory:' });
      expect(report.input.skipped).toEqual([{ file, line: 2, reason: 'line too long: 157.3 MB (the limit: 64.0 MB, AFTERSTOP_MAX_LINE_MB); not read, the rest of the file read' }]);
      expect(report.totals).toEqual(clean.totals);
      expect(report.input.spans_read).toBe(clean.input.spans_read);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }, 120_000);

  it('the limit is AFTERSTOP_MAX_LINE_MB (1 to 256), else 64 MB; a line within it is read whole', async () => {
    expect(maxLineBytes({})).toBe(64e6);
    expect(maxLineBytes({ AFTERSTOP_MAX_LINE_MB: '200' })).toBe(200e6);
    expect(maxLineBytes({ AFTERSTOP_MAX_LINE_MB: '1000' })).toBe(256e6);
    expect(maxLineBytes({ AFTERSTOP_MAX_LINE_MB: '0' })).toBe(64e6);
    expect(maxLineBytes({ AFTERSTOP_MAX_LINE_MB: 'big' })).toBe(64e6);
    // Bytes, not characters: 'é' is two bytes in UTF-8.
    expect(await lines(Readable.from(['éé\n', 'ab\n']), 3)).toEqual([{ tooLong: 4 }, { text: 'ab' }]);
    expect(await lines(Readable.from(['é', 'é', 'é\nab\n']), 5)).toEqual([{ tooLong: 6 }, { text: 'ab' }]);
  });
});
