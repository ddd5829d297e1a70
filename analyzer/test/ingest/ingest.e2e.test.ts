import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze, InputError } from '../../index.js';

const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;
const lines = (name: string): string[] => fs.readFileSync(`${golden}${name}`, 'utf8').split('\n').filter(Boolean);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-ingest-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: string | Buffer): string => {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
};

describe('the store accumulates across runs', () => {
  it('reads only new or grown files, and counts no span twice', async () => {
    const db = path.join(dir, 'store');
    const traces = path.join(dir, 'traces');
    const [first, second] = lines('g2-ghost-email.jsonl');
    write('traces/a.jsonl', `${first}\n`);
    const one = await analyze({ inputs: [traces], db, pricesFile: prices });
    expect(one.input).toMatchObject({ files: 1, files_read: 1, spans_added: 5 });
    expect(one.totals.runs).toBe(1);

    const again = await analyze({ inputs: [traces], db, pricesFile: prices });
    expect(again.input).toMatchObject({ files: 1, files_read: 0, spans_added: 0 });
    expect(again.totals).toEqual(one.totals);

    fs.appendFileSync(path.join(traces, 'a.jsonl'), `${second}\n`);
    write('traces/retry.jsonl', `${first}\n`); // a collector retry: the same spans again
    const grown = await analyze({ inputs: [traces], db, pricesFile: prices });
    expect(grown.input).toMatchObject({ files: 2, files_read: 2, spans_added: 4 });
    expect(grown.totals.runs).toBe(2);
    expect(grown.totals.ghost_commits).toBe(1);
    expect(grown.totals.post_cancel_errors.orphan_tool_call_rejected).toBe(1);
  });
});

describe('bad input', () => {
  it('numbers lines as wc -l does: a lone CR inside a line, and CRLF endings, are no line breaks of their own', async () => {
    const [first, second] = lines('g2-ghost-email.jsonl') as [string, string];
    // Line 1 has a CR where a space was (valid JSON whitespace), line 2 is not JSON, line 3 ends with CRLF.
    write('cr.jsonl', `${first.replace('},{', '},\r{')}\nnot json\r\n${second}\r\n`);
    const report = await analyze({ inputs: [path.join(dir, 'cr.jsonl')], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped.map((x) => [x.line, x.reason.slice(0, 8)])).toEqual([[2, 'not JSON']]);
    expect(report.totals.runs).toBe(2);
  });

  it('names every line it cannot use, with file and line, and analyses the rest', async () => {
    const [first, second] = lines('g2-ghost-email.jsonl') as [string, string];
    const wrongTypes = JSON.parse(second) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
    const spans = wrongTypes.resourceSpans[0]!.scopeSpans[0]!.spans;
    spans[0]!['startTimeUnixNano'] = { not: 'a time' };
    delete spans[1]!['traceId'];
    spans[2]!['attributes'] = 'not a list';
    const file = write('bad.jsonl', [first, 'this is not json', JSON.stringify({ hello: 'world' }), JSON.stringify(wrongTypes), '\u0000\u00ff\u00fe binary', first.slice(0, 200)].join('\n'));
    write('empty.jsonl', '');
    const report = await analyze({ inputs: [dir], db: ':memory:', pricesFile: prices });
    const byLine = report.input.skipped.map((s) => [path.basename(s.file), s.line, s.reason]);
    expect(byLine).toEqual([
      ['bad.jsonl', 2, expect.stringMatching(/^not JSON/)],
      ['bad.jsonl', 3, expect.stringMatching(/not an ExportTraceServiceRequest/)],
      ['bad.jsonl', 4, expect.stringMatching(/startTimeUnixNano is not a time/)],
      ['bad.jsonl', 4, expect.stringMatching(/no traceId/)],
      ['bad.jsonl', 4, expect.stringMatching(/1 malformed attribute\(s\) ignored/)],
      ['bad.jsonl', 5, expect.stringMatching(/^not JSON/)],
      ['bad.jsonl', 6, expect.stringMatching(/^truncated or not JSON/)],
    ]);
    expect(report.input.skipped_count).toBe(7);
    expect(report.input.skipped.every((s) => s.file === file)).toBe(true);
    // Line 1 is read whole; of line 4, the spans that could be kept are.
    expect(report.totals.runs).toBe(2);
    expect(report.input.spans_added).toBe(5 + spans.length - 2);
  });

  it('names a JSON file in the folder that is not OTLP at all (it gives no span), and an empty export is no error', async () => {
    write('t.jsonl', `${lines('g1-stream-in-flight.jsonl').join('\n')}\n`);
    const notTraces = write('settings.json', JSON.stringify({ models: { 'gpt-4o': { input_usd_per_mtok: 1 } } }, null, 2));
    write('empty-export.jsonl', `${JSON.stringify({ resourceSpans: [] })}\n`);
    const report = await analyze({ inputs: [dir], db: ':memory:' });
    expect(report.input.skipped).toEqual([{ file: notTraces, line: 1, reason: expect.stringMatching(/not an ExportTraceServiceRequest/) }]);
    expect(report.totals.runs).toBeGreaterThan(0);
  });

  it('rejects a path that does not exist, or a pattern that matches nothing', async () => {
    await expect(analyze({ inputs: [path.join(dir, 'nope')], db: ':memory:' })).rejects.toSatisfy((e: unknown) => InputError.isInstance(e) && /nope: no such file or folder/.test(e.message));
    await expect(analyze({ inputs: [path.join(dir, '*.jsonl')], db: ':memory:' })).rejects.toThrow(/no file matches/);
  });

  it('rejects a price table that is not one, naming the file', async () => {
    const bad = write('prices.json', JSON.stringify({ models: { 'gpt-4o': { input_usd_per_mtok: 'cheap' } } }));
    write('t.jsonl', `${lines('g1-stream-in-flight.jsonl').join('\n')}\n`);
    await expect(analyze({ inputs: [dir], db: ':memory:', pricesFile: bad })).rejects.toThrow(new RegExp(`${bad}: model gpt-4o needs`));
  });
});

describe('formats', () => {
  const g1 = (): string => `${lines('g1-stream-in-flight.jsonl').join('\n')}\n`;

  it('reads gzip and zstd files, by their first bytes whatever their name (rotated Collector files)', async () => {
    write('plain/a.jsonl', g1());
    write('gz/a.jsonl.gz', gzipSync(g1()));
    write('gz-unnamed/a.jsonl', gzipSync(g1()));
    const zst = write('zst/a.jsonl', g1());
    const compressed = spawnSync('zstd', ['-q', '-f', zst, '-o', `${zst}.zst`]);
    expect(compressed.status).toBe(0);
    fs.rmSync(zst);
    const plain = await analyze({ inputs: [path.join(dir, 'plain')], db: ':memory:', pricesFile: prices });
    for (const sub of ['gz', 'gz-unnamed', 'zst']) {
      const report = await analyze({ inputs: [path.join(dir, sub)], db: ':memory:', pricesFile: prices });
      expect(report.input.files, sub).toBe(1);
      expect(report.input.skipped, sub).toEqual([]);
      expect(report.totals, sub).toEqual(plain.totals);
    }
    expect(plain.totals.tokens_after_stop.output).toBe(30);
  });

  it('reads one pretty-printed document as an OTLP/HTTP exporter posts it, and intValue as number or string', async () => {
    const doc = JSON.parse(lines('g1-stream-in-flight.jsonl')[0]!) as unknown;
    const text = JSON.stringify(doc, null, 2).replace(/"intValue": "(\d+)"/g, '"intValue": $1');
    expect(text).toMatch(/"intValue": \d/);
    write('post.json', text);
    write('rest.jsonl', `${lines('g1-stream-in-flight.jsonl')[1]!}\n`);
    const report = await analyze({ inputs: [dir], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.totals.tokens_after_stop.output).toBe(30);
    expect(report.totals.cancel_ack_ms.p50).toBe(120);
  });

  it('takes globs, and a file named in several inputs once', async () => {
    write('x/g1.jsonl', g1());
    write('y/g1-copy.jsonl', g1());
    const report = await analyze({ inputs: [path.join(dir, '*/g1*.jsonl'), path.join(dir, 'x/g1.jsonl')], db: ':memory:', pricesFile: prices });
    expect(report.input.files).toBe(2);
    expect(report.totals.runs).toBe(1);
  });
});

describe('long lines', () => {
  it('reads a line longer than the fast path takes (16 MiB) through the careful path, whole', async () => {
    const [line] = lines('g1-stream-in-flight.jsonl') as [string];
    const request = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
    // One attribute of 17 MiB makes the line too long for the fast path's limit.
    request.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes.push({ key: 'huge', value: { stringValue: 'x'.repeat(17 * 1024 * 1024) } });
    write('long.jsonl', `${JSON.stringify(request)}\n${lines('g1-stream-in-flight.jsonl')[1]!}\n`);
    const report = await analyze({ inputs: [dir], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.input.spans_added).toBe(4);
    expect(report.totals.tokens_after_stop.output).toBe(30);
  });
});

describe('the store folder', () => {
  it('refuses a store written by another version, naming it', async () => {
    const db = path.join(dir, 'old-store');
    write('t.jsonl', `${lines('g1-stream-in-flight.jsonl').join('\n')}\n`);
    await analyze({ inputs: [dir], db, pricesFile: prices });
    const { Store } = await import('../../store.js');
    const store = await Store.open(db);
    await store.connection.run("UPDATE store_meta SET value = '0' WHERE key = 'store_version'");
    store.close();
    await expect(analyze({ inputs: [dir], db, pricesFile: prices })).rejects.toThrow(new RegExp(`${db}: a store of version 0`));
  });

  it('keeps the facts of unchanged traces: a second report over the same store gives the same figures', async () => {
    const db = path.join(dir, 'store');
    write('a/g2.jsonl', `${lines('g2-ghost-email.jsonl').join('\n')}\n`);
    const first = await analyze({ inputs: [path.join(dir, 'a')], db, pricesFile: prices });
    write('b/g5.jsonl', `${lines('g5-replay.jsonl').join('\n')}\n`);
    const second = await analyze({ inputs: [path.join(dir, 'a'), path.join(dir, 'b')], db, pricesFile: prices });
    expect(second.totals.runs).toBe(first.totals.runs + 2);
    expect(second.totals.ghost_commits).toBe(1);
    expect(second.totals.replay_duplicates).toBe(1);
    const g2only = await analyze({ inputs: [path.join(dir, 'a')], db: ':memory:', pricesFile: prices });
    expect(first.totals).toEqual(g2only.totals);
  });
});
