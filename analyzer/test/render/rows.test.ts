import { describe, expect, it } from 'vitest';
import { renderRows, rowWriter } from '../../render/rows.js';

const rows = [
  { name: 'a,b', n: 12n, note: 'say "hi"\nthere', list: ['x'] },
  { name: 'c', n: 2n ** 60n, note: null, list: [] },
];

describe('query rows', () => {
  it('csv quotes what needs it (RFC 4180)', () => {
    expect(renderRows(rows, 'csv')).toBe('name,n,note,list\r\n"a,b",12,"say ""hi""\nthere","[""x""]"\r\nc,1152921504606846976,,[]\r\n');
  });
  it('json: bigints as numbers when exact, else as strings', () => {
    expect(JSON.parse(renderRows(rows, 'json'))).toEqual([
      { name: 'a,b', n: 12, note: 'say "hi"\nthere', list: ['x'] },
      { name: 'c', n: '1152921504606846976', note: null, list: [] },
    ]);
  });
  it('table and markdown', () => {
    expect(renderRows(rows, 'table').split('\n')[0]).toBe('name  n                    note            list');
    expect(renderRows([], 'table')).toBe('(no rows)\n');
    expect(renderRows(rows, 'markdown').split('\n')[2]).toBe('| a,b | 12 | say "hi" there | \\["x"\\] |');
  });
  it('csv never hands a spreadsheet a formula, nor a terminal an escape sequence; numbers stay numbers', () => {
    const hostile = [{ tool: '=HYPERLINK("http://x","y")', a: '+1', b: '-2+3', c: '@SUM(A1)', d: '\tx', e: 'esc \u001b[31mred', n: -5 }];
    expect(renderRows(hostile, 'csv').split('\r\n')[1]).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+1,'-2+3,'@SUM(A1),'\tx,esc \ufffd[31mred,-5`);
  });
  it('table and markdown show invisible characters (bidi overrides, zero-width) as U+FFFD and cut a huge cell', () => {
    const tricky = [{ name: 'admin\u202eexe.txt', z: 'a\u200bb\ufeff', long: 'x'.repeat(100_000) }];
    const table = renderRows(tricky, 'table');
    const md = renderRows(tricky, 'markdown');
    for (const out of [table, md]) {
      expect(out).not.toMatch(/[\u202e\u200b\ufeff]/);
      expect(out).toContain('admin\ufffdexe.txt');
      expect(out.length).toBeLessThan(1000);
      expect(out).toContain(`${'x'.repeat(199)}…`);
    }
    // The machine formats keep the values whole.
    expect(JSON.parse(renderRows(tricky, 'json'))[0].long).toHaveLength(100_000);
  });
});

describe('rows written as they come (afterstop query)', () => {
  const write = async (format: 'json' | 'csv' | 'table' | 'markdown', columns: string[], chunks: Record<string, unknown>[][]): Promise<string> => {
    let out = '';
    const writer = rowWriter(format, async (text) => {
      out += text;
    });
    await writer.columns(columns);
    for (const chunk of chunks) await writer.rows(chunk);
    await writer.end();
    return out;
  };
  const many = Array.from({ length: 5 }, (_v, i) => ({ i: BigInt(i), text: `line ${i}\nnext, "quoted"`, list: [i], nested: { a: i === 3 ? null : [1, 2] } }));

  it('json, in any chunks, is exactly the whole array as JSON.stringify indents it (bigints as numbers when exact)', async () => {
    const plain = many.map((r) => ({ ...r, i: Number(r.i) }));
    for (const chunks of [[many], [many.slice(0, 2), [], many.slice(2)], many.map((r) => [r])]) {
      expect(await write('json', ['i', 'text', 'list', 'nested'], chunks)).toBe(`${JSON.stringify(plain, null, 2)}\n`);
    }
    expect(renderRows(many, 'json')).toBe(`${JSON.stringify(plain, null, 2)}\n`);
    expect(await write('json', ['i'], [])).toBe('[]\n');
    expect(renderRows([], 'json')).toBe('[]\n');
  });

  it('csv, in any chunks, is what renderRows gives; an empty result still has its header', async () => {
    const whole = renderRows(many, 'csv');
    expect(await write('csv', ['i', 'text', 'list', 'nested'], [many.slice(0, 3), many.slice(3)])).toBe(whole);
    expect(await write('csv', ['i', 'text'], [[], []])).toBe('i,text\r\n');
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
    expect(texts).toEqual([renderRows(many, 'table')]);
    expect(await write('markdown', ['i'], [many.slice(0, 1), many.slice(1)])).toBe(renderRows(many, 'markdown'));
  });
});
