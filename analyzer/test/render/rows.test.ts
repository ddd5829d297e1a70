import { describe, expect, it } from 'vitest';
import { renderAligned, rowWriter, type RowFormat } from '../../render/rows.js';

/** What rowWriter writes for `chunks` of rows, its columns those of the first row unless given. */
const write = async (format: RowFormat, chunks: Record<string, unknown>[][], columns = Object.keys(chunks.flat()[0] ?? {})): Promise<string> => {
  let out = '';
  const writer = rowWriter(format, async (text) => {
    out += text;
  });
  await writer.columns(columns);
  for (const chunk of chunks) await writer.rows(chunk);
  await writer.end();
  return out;
};

const rows = [
  { name: 'a,b', n: 12n, note: 'say "hi"\nthere', list: ['x'] },
  { name: 'c', n: 2n ** 60n, note: null, list: [] },
];

describe('query rows', () => {
  it('csv quotes what needs it (RFC 4180)', async () => {
    expect(await write('csv', [rows])).toBe('name,n,note,list\r\n"a,b",12,"say ""hi""\nthere","[""x""]"\r\nc,1152921504606846976,,[]\r\n');
  });
  it('json: bigints as numbers when exact, else as strings', async () => {
    expect(JSON.parse(await write('json', [rows]))).toEqual([
      { name: 'a,b', n: 12, note: 'say "hi"\nthere', list: ['x'] },
      { name: 'c', n: '1152921504606846976', note: null, list: [] },
    ]);
  });
  it('table and markdown', async () => {
    expect(renderAligned(rows, 'table').split('\n')[0]).toBe('name  n                    note            list');
    expect(renderAligned([], 'table')).toBe('(no rows)\n');
    expect(renderAligned(rows, 'markdown').split('\n')[2]).toBe('| a,b | 12 | say "hi" there | \\["x"\\] |');
  });
  it('csv never hands a spreadsheet a formula, nor a terminal an escape sequence; numbers stay numbers', async () => {
    const hostile = [{ tool: '=HYPERLINK("http://x","y")', a: '+1', b: '-2+3', c: '@SUM(A1)', d: '\tx', e: 'esc \u001b[31mred', n: -5 }];
    expect((await write('csv', [hostile])).split('\r\n')[1]).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+1,'-2+3,'@SUM(A1),'\tx,esc \ufffd[31mred,-5`);
  });
  it('table and markdown show invisible characters (bidi overrides, zero-width) as U+FFFD and cut a huge cell', async () => {
    const tricky = [{ name: 'admin\u202eexe.txt', z: 'a\u200bb\ufeff', long: 'x'.repeat(100_000) }];
    const table = renderAligned(tricky, 'table');
    const md = renderAligned(tricky, 'markdown');
    for (const out of [table, md]) {
      expect(out).not.toMatch(/[\u202e\u200b\ufeff]/);
      expect(out).toContain('admin\ufffdexe.txt');
      expect(out.length).toBeLessThan(1000);
      expect(out).toContain(`${'x'.repeat(199)}…`);
    }
    // The machine formats keep the values whole.
    expect(JSON.parse(await write('json', [tricky]))[0].long).toHaveLength(100_000);
  });
});

describe('rows written as they come (afterstop query)', () => {
  const many = Array.from({ length: 5 }, (_v, i) => ({ i: BigInt(i), text: `line ${i}\nnext, "quoted"`, list: [i], nested: { a: i === 3 ? null : [1, 2] } }));

  it('json, in any chunks, is exactly the whole array as JSON.stringify indents it (bigints as numbers when exact)', async () => {
    const plain = `${JSON.stringify(
      many.map((r) => ({ ...r, i: Number(r.i) })),
      null,
      2,
    )}\n`;
    for (const chunks of [[many], [[], many.slice(0, 2), [], many.slice(2)], many.map((r) => [r])]) expect(await write('json', chunks)).toBe(plain);
    expect(await write('json', [], ['i'])).toBe('[]\n');
    expect(await write('json', [[], []], ['i'])).toBe('[]\n');
  });

  it('csv, in any chunks, is the same text; an empty result still has its header', async () => {
    const whole = await write('csv', [many]);
    expect(whole.split('\r\n')[0]).toBe('i,text,list,nested');
    expect(await write('csv', [many.slice(0, 3), [], many.slice(3)])).toBe(whole);
    expect(await write('csv', [[], []], ['i', 'text'])).toBe('i,text\r\n');
  });

  it('a table and Markdown are aligned over every row: held, and written once at the end', async () => {
    const texts: string[] = [];
    const writer = rowWriter('table', async (text) => {
      texts.push(text);
    });
    await writer.columns(['i', 'text', 'list', 'nested']);
    await writer.rows(many.slice(0, 2));
    await writer.rows(many.slice(2));
    expect(texts).toEqual([]);
    await writer.end();
    expect(texts).toEqual([renderAligned(many, 'table')]);
    expect(await write('markdown', [many.slice(0, 1), many.slice(1)])).toBe(renderAligned(many, 'markdown'));
  });
});
