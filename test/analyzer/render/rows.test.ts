import { describe, expect, it } from 'vitest';
import { renderRows } from '../../../analyzer/render/rows.js';

const rows = [{ name: 'a,b', n: 12n, note: 'say "hi"\nthere', list: ['x'] }, { name: 'c', n: 2n ** 60n, note: null, list: [] }];

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
});
