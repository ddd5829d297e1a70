import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze } from '../index.js';
import { reportSpanFiles } from '../span-files.js';
import { Store, withStore } from '../store.js';
import { sqlRows } from '../../test/helpers/trace-builder.js';

/**
 * The store's spans as Parquet, a folder per day and service: what is on disk
 * after ingests, that each day is rewritten whole (no small files pile up,
 * no span twice), that a report reads only its window's days, and that what
 * a killed write leaves is cleaned up.
 */
const golden = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;
const lines = (name: string): string[] => fs.readFileSync(`${golden}${name}`, 'utf8').split('\n').filter(Boolean);

let dir: string;
let db: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-span-files-'));
  db = path.join(dir, 'store');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: string): string => {
  const file = path.join(dir, 'traces', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
};
const parquetFiles = (): string[] => (fs.existsSync(path.join(db, 'spans')) ? (fs.readdirSync(path.join(db, 'spans'), { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).sort() : []);

/** A golden trace file's traces moved by whole days (ns strings), as other traces (other ids). */
const shiftDays = (line: string, days: number): string =>
  line
    .replace(/"(startTimeUnixNano|endTimeUnixNano|timeUnixNano)":"(\d+)"/g, (_m, key: string, v: string) => `"${key}":"${BigInt(v) + BigInt(days) * 86_400_000_000_000n}"`)
    .replace(/"0000([0-9a-f]{12}|[0-9a-f]{28})"/g, '"1000$1"')
    .replace(/"traceId":"[0-9a-f]/g, '"traceId":"a');

/** A golden line with the spans named by id (their last hex digits) changed by `edit`. */
function editSpans(line: string, ids: string[], edit: (span: Record<string, unknown>) => void): string {
  const request = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
  for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) for (const span of ss.spans) if (ids.some((id) => String(span['spanId']).endsWith(id))) edit(span);
  return JSON.stringify(request);
}
const later =
  (days: number) =>
  (span: Record<string, unknown>): void => {
    for (const key of ['startTimeUnixNano', 'endTimeUnixNano']) span[key] = String(BigInt(String(span[key])) + BigInt(days) * 86_400_000_000_000n);
  };

describe('the Parquet store', () => {
  it('keeps the spans in a folder per day and service, one file each, recorded in the catalog', async () => {
    write('all.jsonl', `${[...lines('g2-ghost-email.jsonl'), ...lines('g5-replay.jsonl')].join('\n')}\n`);
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    const files = parquetFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/^day=\d{4}-\d{2}-\d{2}\/service_folder=[^/]+\/part-[\w-]+\.parquet$/);
    expect(new Set(files.map((f) => path.dirname(f))).size).toBe(files.length);
    expect(files.map((f) => f.split('/')[1]).sort()).toEqual(['service_folder=billing-graph', 'service_folder=checkout-agent']);
    await withStore(db, async (store) => {
      const recorded = await sqlRows(store, 'SELECT path, spans FROM span_files ORDER BY path');
      expect(recorded.map((r) => r['path'])).toEqual(files.map((f) => `spans/${f}`));
      expect(recorded.reduce((n, r) => n + Number(r['spans']), 0)).toBe(report.input.spans_read);
    });
  });

  it('a service named in any script and at any length is stored, in a folder the file system takes, and reported by its name', async () => {
    const names = ['支'.repeat(29), '日本語のサービス名'.repeat(4), 'a'.repeat(256), `${'b'.repeat(300)}-1`, `${'b'.repeat(300)}-2`, 'é'.repeat(200), 'plain-name'];
    const [line] = lines('g2-ghost-email.jsonl');
    write(
      'names.jsonl',
      `${names.map((name, i) => line!.replace(/"stringValue":"checkout-agent"/g, `"stringValue":${JSON.stringify(name)}`).replace(/"(traceId|spanId|parentSpanId)":"[0-9a-f]{2}/g, (_m, key: string) => `"${key}":"${String(i).padStart(2, '0')}`)).join('\n')}\n`,
    );
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.groups.map((g) => g.service).sort()).toEqual([...names].sort());
    const folders = [...new Set(parquetFiles().map((f) => f.split('/')[1]!))];
    expect(folders).toHaveLength(names.length);
    for (const f of folders) expect(Buffer.byteLength(f), f).toBeLessThan(255);
    // Short names are their own folder; long ones a readable cut and a hash, distinct even with a shared beginning.
    expect(folders).toContain('service_folder=plain-name');
    expect(folders.filter((f) => f.startsWith('service_folder=bbbbbbbbbbbbbbb~'))).toHaveLength(2);
    // A second ingest into the same store reads the folders back.
    const again = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    expect(again.totals.runs).toBe(report.totals.runs);
  });

  it('a write of many partitions (one PARTITION_BY COPY) and of few (a COPY each) name their folders alike, and lose no span', async () => {
    const [line] = lines('g2-ghost-email.jsonl');
    const odd = ['a/b', 'x y', 'per%cent', 'q?&=#', '..', 'quo\'te"', '日本語', 'plus+'];
    const names = [...odd, ...Array.from({ length: 32 }, (_v, i) => `svc-${i}`)];
    const traces = (some: string[]): string =>
      `${some.map((name, i) => line!.replace(/"stringValue":"checkout-agent"/g, `"stringValue":${JSON.stringify(name)}`).replace(/"(traceId|spanId|parentSpanId)":"[0-9a-f]{2}/g, (_m, key: string) => `"${key}":"${String(i).padStart(2, '0')}`)).join('\n')}\n`;
    const folders = (store: string): string[] => [...new Set((fs.readdirSync(path.join(store, 'spans'), { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).map((f) => path.dirname(f)))].sort();
    const many = write('many/t.jsonl', traces(names));
    const manyReport = await analyze({ inputs: [many], db, pricesFile: prices });
    expect(manyReport.groups.map((g) => g.service).sort()).toEqual([...names].sort());
    const few = write('few/t.jsonl', traces(odd));
    const fewDb = path.join(dir, 'few-store');
    const fewReport = await analyze({ inputs: [few], db: fewDb, pricesFile: prices });
    expect(fewReport.groups.map((g) => g.service).sort()).toEqual([...odd].sort());
    expect(folders(db)).toHaveLength(names.length);
    expect(folders(fewDb)).toHaveLength(odd.length);
    for (const f of folders(fewDb)) expect(folders(db), f).toContain(f);
    expect(folders(fewDb)).toContain(path.join('day=2026-09-21', 'service_folder=a%2Fb'));
    await withStore(fewDb, async (store) => {
      const [{ n }] = (await sqlRows(store, 'SELECT sum(spans)::INT AS n FROM span_files')) as [{ n: number }];
      expect(n).toBe(fewReport.input.spans_read);
    });
  });

  it('rewrites a day whole when it gets new spans: still one file per day and service, the old ones gone, no span twice', async () => {
    const [first, second] = lines('g2-ghost-email.jsonl');
    write('a.jsonl', `${first}\n`);
    await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    const before = parquetFiles();
    write('b.jsonl', `${second}\n`);
    write('copy.jsonl', `${first}\n`); // the same spans again, in another file
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    const after = parquetFiles();
    expect(after).toHaveLength(before.length);
    expect(after.some((f) => before.includes(f))).toBe(false);
    expect(report.totals.runs).toBe(2);
    const whole = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: ':memory:', pricesFile: prices });
    expect(report.totals).toEqual(whole.totals);
  });

  it('a report reads only the days of its window (and the day beside each end)', async () => {
    const g2 = lines('g2-ghost-email.jsonl');
    write('day0.jsonl', `${g2.join('\n')}\n`);
    write('day10.jsonl', `${g2.map((l) => shiftDays(l, 10).replaceAll('conv-g2', 'conv-g2-later')).join('\n')}\n`);
    const all = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    expect(all.totals.runs).toBe(4);
    const start = new Date(1_790_000_000_000); // the golden traces' base time
    const since = new Date(start.getTime() + 9 * 86_400_000);
    await withStore(db, async (store) => {
      const read = await reportSpanFiles(store, BigInt(since.getTime()) * 1_000_000n, null);
      const days = read.map((f) => /day=([\d-]+)/.exec(f)![1]);
      expect(new Set(days)).toEqual(new Set([new Date(start.getTime() + 10 * 86_400_000).toISOString().slice(0, 10)]));
    });
    // A file outside the window is not even opened: break it, and the window's report still comes.
    const early = parquetFiles().find((f) => f.includes(start.toISOString().slice(0, 10)))!;
    fs.writeFileSync(path.join(db, 'spans', early), 'not parquet');
    const later = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices, since });
    expect(later.totals.runs).toBe(2);
    expect(later.totals.ghost_commits).toBe(1);
  });

  it('a report over a window reads the days of the runs linked to it: the next run of a Stopped conversation, five days later, still shows its error', async () => {
    // g2: run 1 stopped (day 0); run 2, the next turn of the same conversation, fails on the unanswered tool call: moved 5 days on.
    const [first, second] = lines('g2-ghost-email.jsonl');
    write('g2.jsonl', `${first}\n${editSpans(second!, ['000f', '0010'], later(5))}\n`);
    const since = new Date(1_790_000_000_000 - 3_600_000);
    const until = new Date(1_790_000_000_000 + 3_600_000);
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices, since, until });
    expect(report.totals.runs).toBe(1);
    expect(report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
  });

  it('a run that lasts days, given a span days after it started, keeps its facts: the days its run already spans are read back too', async () => {
    const [first] = lines('g2-ghost-email.jsonl');
    // Run 1's span ends three days after it starts; a later ingest brings a marker of that run on day three.
    write(
      'a.jsonl',
      `${editSpans(first!, ['0007'], (span) => {
        span['endTimeUnixNano'] = String(BigInt(String(span['startTimeUnixNano'])) + 3n * 86_400_000_000_000n);
      })}\n`,
    );
    await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    const marker = editSpans(first!, ['000b'], (span) => {
      Object.assign(span, { spanId: '00000000000000ee', name: 'afterstop.cancel.settle' });
      later(3)(span);
    });
    write(
      'b.jsonl',
      `${JSON.stringify({ resourceSpans: (JSON.parse(marker) as { resourceSpans: { scopeSpans: { spans: { spanId: string }[] }[] }[] }).resourceSpans.map((rs) => ({ ...rs, scopeSpans: rs.scopeSpans.map((ss) => ({ ...ss, spans: ss.spans.filter((x) => x.spanId === '00000000000000ee') })) })) })}\n`,
    );
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    expect(report.input.files_read).toBe(1);
    expect(report.totals).toMatchObject({ runs: 1, unended_runs: 0, cancelled_runs: 1 });
    expect(report.totals.cancel_settle_ms.max).toBe(3 * 86_400_000);
  });

  it('cleans up after a killed write: spans left in the catalog and files never made live', async () => {
    write('a.jsonl', `${lines('g2-ghost-email.jsonl')[0]}\n`);
    await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    const live = parquetFiles();
    const stray = path.join(db, 'spans', path.dirname(live[0]!), 'part-1790000000000-deadbeef-0.parquet');
    fs.copyFileSync(path.join(db, 'spans', live[0]!), stray);
    // Files afterstop did not name so are not its own: a sweep leaves them.
    const theirs = [path.join(db, 'spans', 'mine.parquet'), path.join(db, 'spans', path.dirname(live[0]!), 'export.parquet')];
    for (const f of theirs) fs.copyFileSync(path.join(db, 'spans', live[0]!), f);
    const store = await Store.open(db);
    await store.connection.run('INSERT INTO spans SELECT * EXCLUDE (day, service_folder) FROM read_parquet($f)', { f: path.join(db, 'spans', live[0]!) });
    store.close();
    write('b.jsonl', `${lines('g2-ghost-email.jsonl')[1]}\n`);
    const report = await analyze({ inputs: [path.join(dir, 'traces')], db, pricesFile: prices });
    expect(fs.existsSync(stray)).toBe(false);
    for (const f of theirs) expect(fs.existsSync(f), f).toBe(true);
    expect(report.totals.runs).toBe(2);
    const whole = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: ':memory:', pricesFile: prices });
    expect(report.totals).toEqual(whole.totals);
  });

  it('refuses a folder that holds files and is not an afterstop store, and touches nothing in it', async () => {
    const theirs = path.join(dir, 'my-project');
    fs.mkdirSync(path.join(theirs, 'spans'), { recursive: true });
    fs.writeFileSync(path.join(theirs, 'spans', 'data.parquet'), 'PAR1 not afterstop');
    fs.writeFileSync(path.join(theirs, 'notes.txt'), 'mine');
    await expect(analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: theirs })).rejects.toThrow(`${theirs}: not an afterstop store`);
    expect(fs.readdirSync(theirs).sort()).toEqual(['notes.txt', 'spans']);
    expect(fs.readdirSync(path.join(theirs, 'spans'))).toEqual(['data.parquet']);
    // An empty folder is a new store.
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    expect((await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: empty, pricesFile: prices })).totals.runs).toBeGreaterThan(0);
    // What a first open killed before its catalog was written leaves (an empty tmp folder) is a new store too;
    // a tmp folder with something in it is not afterstop's to take.
    const killed = path.join(dir, 'killed-first-open');
    fs.mkdirSync(path.join(killed, 'tmp'), { recursive: true });
    expect((await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: killed, pricesFile: prices })).totals.runs).toBeGreaterThan(0);
    const used = path.join(dir, 'used-tmp');
    fs.mkdirSync(path.join(used, 'tmp'), { recursive: true });
    fs.writeFileSync(path.join(used, 'tmp', 'theirs'), 'x');
    await expect(analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: used })).rejects.toThrow(`${used}: not an afterstop store`);
  });

  it('refuses a store of an earlier afterstop (one DuckDB file), naming it', async () => {
    const old = path.join(dir, 'afterstop.duckdb');
    fs.writeFileSync(old, 'DUCK');
    await expect(analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: old })).rejects.toThrow(`${old}: a store of an earlier afterstop (one DuckDB file`);
  });
});
