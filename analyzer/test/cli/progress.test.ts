import { describe, expect, it } from 'vitest';
import { stderrProgress } from '../../cli/progress.js';

const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, s: { isTTY, columns: 80, write: (chunk: string) => (written.push(chunk), true) } as unknown as NodeJS.WriteStream };
};

describe('progress on stderr', () => {
  it('not on a terminal: each new message once, no bar, no control characters', () => {
    const { written, s } = stream(false);
    const p = stderrProgress(s);
    p.update('reading 2 file(s)');
    p.update('reading 2 file(s)', 40);
    p.update('computing the report');
    p.done();
    expect(written).toEqual(['afterstop: reading 2 file(s)\n', 'afterstop: computing the report\n']);
  });

  it('on a terminal: one line redrawn, with a bar when the percentage is known, cleared at the end', () => {
    const { written, s } = stream(true);
    const p = stderrProgress(s);
    p.update('reading 1 file(s)', 50);
    p.update('reading 1 file(s)');
    p.done();
    expect(written[0]).toBe('\r\x1b[2Kafterstop: [############------------]  50% reading 1 file(s)');
    expect(written[1]).toBe('\r\x1b[2Kafterstop: reading 1 file(s)');
    expect(written[2]).toBe('\r\x1b[2K');
    p.update('x'.repeat(200));
    expect(written[3]!.length).toBe('\r\x1b[2K'.length + 79);
  });
});
