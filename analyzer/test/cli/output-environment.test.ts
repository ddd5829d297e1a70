import { describe, expect, it } from 'vitest';
import { sourceDateEpoch } from '../../cli/time.js';
import { terminalColumns } from '../../render/terminal.js';

/** The environment that fixes what a command draws: the width without a terminal, the HTML's generated time. */
describe('the output environment', () => {
  it("width: the terminal's, else COLUMNS, else the fallback", () => {
    expect(terminalColumns({ columns: 80 }, { COLUMNS: '120' })).toBe(80);
    expect(terminalColumns({}, { COLUMNS: '120' })).toBe(120);
    expect(terminalColumns({}, {})).toBe(100);
    for (const bad of ['', '0', '-5', '12.5', 'wide']) expect(terminalColumns({}, { COLUMNS: bad }), bad).toBe(100);
  });

  it('SOURCE_DATE_EPOCH: whole seconds since 1970; unset or empty is now; anything else an error', () => {
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '1790000000' })?.toISOString()).toBe('2026-09-21T14:13:20.000Z');
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '0' })?.toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(sourceDateEpoch({})).toBeUndefined();
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '' })).toBeUndefined();
    for (const bad of ['-1', '1.5', '2026-09-21', ' 1', '999999999999999']) expect(() => sourceDateEpoch({ SOURCE_DATE_EPOCH: bad }), bad).toThrow(/SOURCE_DATE_EPOCH/);
  });
});
