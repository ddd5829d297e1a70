import { describe, expect, it } from 'vitest';
import { firstWord, parseStat } from '../process-tree.js';

/** Reading /proc's text (process-tree.ts): what a process's stat and command line give, never its arguments. */
describe('/proc parsing', () => {
  it('a stat line: pid, parent pid and start time, also when the command name holds spaces and parentheses', () => {
    const fields = (comm: string) => `4242 (${comm}) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000000 200 18446744073709551615`;
    expect(parseStat(fields('sleep'))).toEqual({ pid: 4242, ppid: 17, startTime: '987654', comm: 'sleep' });
    expect(parseStat(fields('a (b) c'))).toEqual({ pid: 4242, ppid: 17, startTime: '987654', comm: 'a (b) c' });
    expect(parseStat('garbage')).toBeUndefined();
    expect(parseStat('12 (x) S')).toBeUndefined();
  });

  it("a command line's first word, its basename only; the kernel's name when the command line is empty", () => {
    expect(firstWord('/usr/bin/node\0-e\0fetch("http://x/effects")\0', 'node')).toBe('node');
    expect(firstWord('bash\0-c\0sleep 30 & echo hi\0', 'bash')).toBe('bash');
    // A process that rewrote its title puts its arguments in the first field, space-separated.
    expect(firstWord('/opt/app/worker --token secret\0', 'worker')).toBe('worker');
    expect(firstWord('', 'kthreadd')).toBe('kthreadd');
  });
});
