import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../../analyzer/index.js';

/**
 * Bad inputs named one by one, each with its expected outcome (the fuzz test
 * covers their classes at random): what the report then says.
 */
const golden = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
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
  it('the same span twice with conflicting content: kept once (the first read), the figures unchanged', async () => {
    const conflicting = g2.map((l) => edit(l, (s) => { s['name'] = `${String(s['name'])}`; s['attributes'] = [...(s['attributes'] as unknown[]), { key: 'x.conflict', value: { stringValue: 'second copy' } }]; }));
    const report = await analyze({ inputs: [write([...g2, ...conflicting])], db: ':memory:', pricesFile: prices });
    expect(report.input.spans_read).toBe(2 * clean.input.spans_read);
    expect(report.totals).toEqual(clean.totals);
  });

  it('a span that ends before it starts is named and not used; the rest is analysed', async () => {
    const backwards = g2.map((l, i) => (i === 0 ? edit(l, (s) => { if (String(s['spanId']).endsWith('0008')) [s['startTimeUnixNano'], s['endTimeUnixNano']] = [s['endTimeUnixNano'], s['startTimeUnixNano']]; }) : l));
    const report = await analyze({ inputs: [write(backwards)], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped.map((x) => [x.line, x.reason])).toEqual([[1, expect.stringMatching(/ends before it starts/)]]);
    expect(report.totals.runs).toBe(clean.totals.runs);
  });

  it('clock skew between services (one service’s spans 2 s ahead): figures computed from each span as given, no negative latency', async () => {
    const skewed = g2.map((l) => edit(l, (s) => {
      if (String(s['name']).startsWith('afterstop.cancel.ack')) for (const k of ['startTimeUnixNano', 'endTimeUnixNano']) s[k] = String(BigInt(String(s[k])) - 2_000_000_000n);
    }));
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

  it('an attribute array of a hundred thousand values: read, the figures unchanged', async () => {
    const huge = g2.map((l, i) => (i === 0 ? edit(l, (s) => { (s['attributes'] as unknown[]).push({ key: 'x.huge', value: { arrayValue: { values: Array.from({ length: 100_000 }, (_, k) => ({ stringValue: `v${k}` })) } } }); }) : l));
    const report = await analyze({ inputs: [write(huge)], db: ':memory:', pricesFile: prices });
    expect(report.input.skipped).toEqual([]);
    expect(report.totals).toEqual(clean.totals);
  });
});
