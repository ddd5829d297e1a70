import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { runCli, type CliResult } from '../../../../test/helpers/cli.js';

/**
 * One trace file the job may not read (mode 000, another user's) among readable ones: the built CLI names
 * it with its reason, reports the others, and says in the report what it skipped. As root, whom a file's
 * mode does not stop, the CLI runs as the user nobody (uid 65534), for whom mode 000 is unreadable.
 */
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const root = process.getuid?.() === 0;
const NOBODY = 65534;

let dir: string;
let locked: string;
let lockedFolder: string;
beforeAll(() => {
  // As root the child runs as nobody: its folder must be one nobody can reach (the tests' TMPDIR is root's, 0700).
  dir = fs.mkdtempSync(path.join(root ? '/tmp' : os.tmpdir(), 'afterstop-unreadable-'));
  fs.chmodSync(dir, 0o755);
  for (const f of fs.readdirSync(golden).filter((f) => f.endsWith('.jsonl'))) fs.copyFileSync(path.join(golden, f), path.join(dir, f));
  locked = path.join(dir, 'g1-stream-in-flight.jsonl');
  fs.chmodSync(locked, 0o000);
  // A folder of traces the job cannot list.
  lockedFolder = path.join(dir, 'other-team');
  fs.mkdirSync(lockedFolder);
  fs.copyFileSync(path.join(golden, 'g2-ghost-email.jsonl'), path.join(lockedFolder, 'g2.jsonl'));
  fs.chmodSync(lockedFolder, 0o000);
  fs.mkdirSync(path.join(dir, 'tmp'), { mode: 0o777 });
  fs.chmodSync(path.join(dir, 'tmp'), 0o777);
});
afterAll(() => {
  fs.chmodSync(lockedFolder, 0o755);
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]): Promise<CliResult> => runCli(['leak-report', ...args], { cwd: dir, env: { TMPDIR: path.join(dir, 'tmp') }, ...(root ? { uid: NOBODY, gid: NOBODY } : {}) });

describe('a trace file the job cannot read', () => {
  it('is named with its reason (EACCES) on stderr and in the report, as is a folder it cannot list; the other files are reported', async () => {
    const out = await run([dir, '--db', ':memory:', '--format', 'json', '--no-progress']);
    expect(out.stderr).not.toContain('internal error');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toContain(`skipped ${locked}: cannot be read (EACCES)`);
    expect(out.stderr).toContain(`skipped ${lockedFolder}: a folder that cannot be listed (EACCES)`);
    const report = JSON.parse(out.stdout) as LeakReport;
    expect(report.input.skipped).toEqual([
      { file: locked, line: 0, reason: 'cannot be read (EACCES); skipped, and read again next time' },
      { file: lockedFolder, line: 0, reason: 'a folder that cannot be listed (EACCES): its trace files are not read; skipped, and read again next time' },
    ]);
    expect(report.input.files).toBe(fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).length + 1);
    expect(report.input.spans_read).toBeGreaterThan(0);
    expect(report.totals.runs).toBeGreaterThan(0);
  });

  it('is not marked read: once readable, the next report of the same store reads it', async () => {
    const db = path.join(dir, 'store');
    fs.mkdirSync(db, { mode: 0o777 });
    fs.chmodSync(db, 0o777);
    const first = await run([dir, '--db', db, '--format', 'json', '--no-progress']);
    expect(first.status, first.stderr).toBe(0);
    const before = JSON.parse(first.stdout) as LeakReport;
    fs.chmodSync(locked, 0o644);
    fs.chmodSync(lockedFolder, 0o755);
    const second = await run([dir, '--db', db, '--format', 'json', '--no-progress']);
    expect(second.status, second.stderr).toBe(0);
    const after = JSON.parse(second.stdout) as LeakReport;
    expect(after.input.skipped).toEqual([]);
    expect(after.input.files_read).toBe(2);
    expect(after.totals.runs).toBeGreaterThan(before.totals.runs);
    fs.chmodSync(locked, 0o000);
    fs.chmodSync(lockedFolder, 0o000);
  });
});
