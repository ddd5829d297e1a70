import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { runModule } from '../../../test/helpers/child.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * Bad inputs named one by one, each with its expected outcome (the fuzz test
 * covers their classes at random): what the report then says.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;
const g2 = fs.readFileSync(`${golden}g2-ghost-email.jsonl`, 'utf8').split('\n').filter(Boolean);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bad-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const write = (lines: string[]): string => {
  const file = path.join(dir, `case-${n++}.jsonl`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
type Request = { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
const edit = (line: string, f: (span: Record<string, unknown>) => void): string => {
  const r = JSON.parse(line) as Request;
  for (const rs of r.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) f(s);
  return JSON.stringify(r);
};
const clean = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db: ':memory:', pricesFile: prices });

describe('bad inputs, one by one', () => {
  it('a lone UTF-16 surrogate in a value (half an emoji): the line is read, the rest of the file too, nothing skipped', async () => {
    const lone = g2[0]!.replace('"attributes":[', '"attributes":[{"key":"afterstop.cancel.reason","value":{"stringValue":"cut \\ud83d here"}},');
    expect(lone).toContain('\\ud83d');
    const report = await analyze({ inputs: [write([lone, ...g2.slice(1)])], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.input.spans_added).toBe(clean.input.spans_read);
    expect(report.totals).toEqual(clean.totals);
  });

  it('an attribute nested deeper than the stack takes: that line named, the rest of the file read', async () => {
    let open = '';
    let close = '';
    for (let i = 0; i < 20_000; i++) {
      open += '{"kvlistValue":{"values":[{"key":"a","value":';
      close += '}]}}';
    }
    const deep = g2[0]!.replace('"attributes":[', `"attributes":[{"key":"deep","value":${open}{"stringValue":"x"}${close}},`);
    const report = await analyze({ inputs: [write([deep, ...g2.slice(1), '{broken'])], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped.map((k) => [k.line, k.reason.split(' (')[0]])).toEqual([
      [1, 'nested too deep to be read'],
      [g2.length + 1, expect.stringMatching(/not JSON/)],
    ]);
    expect(report.input.spans_added).toBeGreaterThan(0);
  });

  it('a file whose checked lines cannot be stored now (no room for the temporary file) is not counted as read: the next ingest reads it whole', async () => {
    const db = path.join(dir, `store-${n}`);
    const file = write([...g2, '{"resourceSpans": [ broken']); // a broken line: the careful path
    const tmp = process.env['TMPDIR'];
    process.env['TMPDIR'] = path.join(dir, 'no-such-folder', 'tmp');
    let first;
    try {
      first = await analyze({ inputs: [file], db, pricesFile: prices });
    } finally {
      process.env['TMPDIR'] = tmp;
    }
    expect(first.input.spans_added).toBe(0);
    expect(first.input.skipped.map((k) => k.reason)).toContainEqual(expect.stringMatching(/could not be stored \(ENOENT\); it will be read again next time/));
    const second = await analyze({ inputs: [file], db, pricesFile: prices });
    expect(second.input.spans_added).toBe(clean.input.spans_read);
    expect(second.totals).toEqual(clean.totals);
  });

  it('a time past int64, or negative, is no time: named in input.skipped on the fast path and the careful one alike, the rest read', async () => {
    const first = (f: (span: Record<string, unknown>) => void) => (line: string) => {
      let done = false;
      return edit(line, (span) => {
        if (!done) {
          f(span);
          done = true;
        }
      });
    };
    const cases = {
      past: g2.map(first((s) => (s['endTimeUnixNano'] = '18446744073709551615'))),
      negative: g2.map(first((s) => (s['startTimeUnixNano'] = '-5'))),
      // biome-ignore lint/correctness/noPrecisionLoss: 2^64 - 1 as a JSON number, which no double holds, is the case tested.
      'past, as a number': g2.map(first((s) => (s['endTimeUnixNano'] = 18446744073709551615))),
      // A broken line beside it sends the file down the careful path.
      'negative, careful path': [...g2.map(first((s) => (s['startTimeUnixNano'] = '-5'))), '{"resourceSpans": [ broken'],
    };
    for (const [name, lines] of Object.entries(cases)) {
      const report = await analyze({ inputs: [write(lines)], db: ':memory:', pricesFile: prices });
      const timeSkips = report.input.skipped.filter((k) => /not a time|without a trace id, span id or times/.test(k.reason));
      expect(timeSkips.length, name).toBeGreaterThan(0);
      // Every span is either added or named: none vanishes.
      const named = timeSkips.reduce((n, k) => n + Number(/^(\d+) span\(s\)/.exec(k.reason)?.[1] ?? 1), 0);
      expect(report.input.spans_added + named, name).toBe(clean.input.spans_read);
    }
  });

  it('the same span twice with conflicting content: kept once (the first read), the figures unchanged', async () => {
    const conflicting = g2.map((l) =>
      edit(l, (s) => {
        s['name'] = `${String(s['name'])}`;
        s['attributes'] = [...(s['attributes'] as unknown[]), { key: 'x.conflict', value: { stringValue: 'second copy' } }];
      }),
    );
    const report = await analyze({ inputs: [write([...g2, ...conflicting])], db: ':memory:', pricesFile: prices });
    expect(report.input.spans_read).toBe(2 * clean.input.spans_read);
    expect(report.totals).toEqual(clean.totals);
  });

  it('a span that ends before it starts is named and not used; the rest is analysed', async () => {
    const backwards = g2.map((l, i) =>
      i === 0
        ? edit(l, (s) => {
            if (String(s['spanId']).endsWith('0008')) [s['startTimeUnixNano'], s['endTimeUnixNano']] = [s['endTimeUnixNano'], s['startTimeUnixNano']];
          })
        : l,
    );
    const report = await analyze({ inputs: [write(backwards)], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped.map((x) => [x.line, x.reason])).toEqual([[1, expect.stringMatching(/ends before it starts/)]]);
    expect(report.totals.runs).toBe(clean.totals.runs);
  });

  it('clock skew between services (one service’s spans 2 s ahead): figures computed from each span as given, no negative latency', async () => {
    const skewed = g2.map((l) =>
      edit(l, (s) => {
        if (String(s['name']).startsWith('afterstop.cancel.ack')) for (const k of ['startTimeUnixNano', 'endTimeUnixNano']) s[k] = String(BigInt(String(s[k])) - 2_000_000_000n);
      }),
    );
    const report = await analyze({ inputs: [write(skewed)], db: ':memory:', pricesFile: prices });
    expect(report.totals.cancelled_runs).toBe(clean.totals.cancelled_runs);
    for (const v of [report.totals.cancel_ack_ms.p50, report.totals.cancel_ack_ms.max, report.totals.cancel_settle_ms.max]) if (v !== null) expect(Number.isFinite(v)).toBe(true);
  });

  it('a file that grows while it is read (a collector appending): what was read counts, the rest is read next time, nothing twice', async () => {
    const file = write(g2.slice(0, 1));
    const db = path.join(dir, 'store');
    const first = await analyze({ inputs: [file], db, pricesFile: prices });
    fs.appendFileSync(file, `${g2[1]}\n`);
    const second = await analyze({ inputs: [file], db, pricesFile: prices });
    expect(first.totals.runs).toBe(1);
    expect(second.input.files_read).toBe(1);
    expect(second.totals).toEqual(clean.totals);
  });

  it('trace files rotated while they are read (a writer renaming the file it appends to, again and again, while reports run): no report fails, and at the end every run is counted once', async () => {
    const t = traces();
    const N = 3000;
    for (let i = 0; i < N; i++) t.run({ startMs: i * 10, endMs: i * 10 + 5, agent: 'rotated' });
    const lines = t.toLines();
    expect(lines).toHaveLength(N);
    const folder = path.join(dir, 'rotating');
    fs.mkdirSync(folder);
    const source = path.join(dir, 'rotating-lines.json');
    fs.writeFileSync(source, JSON.stringify(lines));
    // The writer: appends line by line to traces.jsonl, and every 3 lines renames it aside and starts a new one (the listing races the renames).
    // Halfway it waits until a report has run while it wrote (a slow machine must not let it finish first).
    const halfway = path.join(dir, 'rotating-go-on');
    const writer = runModule(
      `
      import * as fs from 'node:fs';
      const lines = JSON.parse(fs.readFileSync(${JSON.stringify(source)}, 'utf8'));
      const live = ${JSON.stringify(path.join(folder, 'traces.jsonl'))};
      for (let i = 0; i < lines.length; i++) {
        if (i === lines.length / 2) while (!fs.existsSync(${JSON.stringify(halfway)})) await new Promise((r) => setTimeout(r, 5));
        fs.appendFileSync(live, lines[i] + '\\n');
        if (i % 3 === 2) fs.renameSync(live, ${JSON.stringify(folder)} + '/traces-' + String(i).padStart(5, '0') + '.jsonl');
        if (i % 2 === 0) await new Promise((r) => setTimeout(r, 1));
      }
    `,
      { timeoutMs: 60_000 },
    );
    const db = path.join(dir, 'rotating-store');
    let done = false;
    void writer.then(() => (done = true));
    let reports = 0;
    while (!done) {
      const r = await analyze({ inputs: [folder], db, pricesFile: prices });
      expect(r.totals.runs).toBeLessThanOrEqual(N);
      reports++;
      fs.writeFileSync(halfway, '');
    }
    const w = await writer;
    expect(w.code, w.stderr).toBe(0);
    const last = await analyze({ inputs: [folder], db, pricesFile: prices });
    expect(reports).toBeGreaterThan(1);
    expect(last.totals.runs).toBe(N);
    expect(last.input.skipped).toEqual([]);
  }, 90_000);

  it('a file renamed after it was found and before it was read (rotation at the worst moment): named as skipped, read under its new name next time, counted once', async () => {
    const folder = path.join(dir, 'renamed');
    fs.mkdirSync(folder);
    const live = path.join(folder, 'traces.jsonl');
    fs.writeFileSync(live, `${g2.join('\n')}\n`);
    const db = path.join(dir, 'renamed-store');
    let renamed = false;
    const first = await analyze({
      inputs: [folder],
      db,
      pricesFile: prices,
      progress: (message) => {
        if (!renamed && message.startsWith('reading')) {
          fs.renameSync(live, path.join(folder, 'traces-1.jsonl'));
          renamed = true;
        }
      },
    });
    expect(renamed).toBe(true);
    expect(first.input.skipped).toEqual([{ file: live, line: 1, reason: expect.stringMatching(/^cannot be read further: ENOENT/) }]);
    const second = await analyze({ inputs: [folder], db, pricesFile: prices });
    expect(second.input.skipped).toEqual([]);
    expect(second.totals).toEqual(clean.totals);
  });

  it('an attribute array of a hundred thousand values: read, the figures unchanged', async () => {
    const huge = g2.map((l, i) =>
      i === 0
        ? edit(l, (s) => {
            (s['attributes'] as unknown[]).push({ key: 'x.huge', value: { arrayValue: { values: Array.from({ length: 100_000 }, (_, k) => ({ stringValue: `v${k}` })) } } });
          })
        : l,
    );
    const report = await analyze({ inputs: [write(huge)], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.totals).toEqual(clean.totals);
  });
});
