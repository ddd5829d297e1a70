import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../analyzer/index.js';
import type { ExportStats } from '../../index.js';
import { distModule, lastJson, phaseFunction, runModule, tempCwd } from '../../../test/helpers/child.js';

/**
 * The file exporter on a full disk: the next trace file is the kernel's
 * /dev/full (every write fails with ENOSPC, as on a full file system), then
 * the disk has room again. The app's work completes with its results, what
 * could not be written is counted, the failure is said once on stderr, no new
 * file is made per failed write (a full disk left 596 empty trace files: the
 * exporter moved on to a new file after each), writing resumes in the file
 * that failed, and every line of every trace file left is whole.
 */
const INDEX = distModule('instrumentation/index.js');
const tempFolder = tempCwd();

/** The child: a phase with room, one on a full disk, one with room again; it waits for the test between phases. */
const script = `
  import * as fs from 'node:fs';
  import { setup, startRun, exportStats, flush, shutdown } from ${JSON.stringify(INDEX)};
  // A line per file (rotation at 1 byte): after a failed write the exporter opens the next file.
  setup({ serviceName: 'disk', exporter: 'file', tracesDir: 'traces', maxFileBytes: 1, scheduledDelayMs: 20, flushTimeoutMs: 1500 });
  const waitFor = async (name) => { while (!fs.existsSync(name)) await new Promise((r) => setTimeout(r, 10)); };
  ${phaseFunction(true)}
  const out = { results: [] };
  out.results.push(await phase('room'));
  out.room = exportStats();
  fs.writeFileSync('phase0', '');
  await waitFor('full');
  out.results.push(await phase('full'));
  out.full = exportStats();
  fs.writeFileSync('phase1', '');
  await waitFor('room-again');
  out.results.push(await phase('again'));
  out.again = exportStats();
  console.log(JSON.stringify(out));
  await shutdown();
`;

describe('the file exporter on a full disk', () => {
  it('the app runs on with its results; what could not be written is counted; writing resumes; every line left is whole', async () => {
    const cwd = tempFolder();
    const child = runModule(script, { cwd, timeoutMs: 60_000 });
    const traces = path.join(cwd, 'traces');
    const wait = async (name: string) => {
      while (!fs.existsSync(path.join(cwd, name))) await new Promise((r) => setTimeout(r, 10));
    };
    await wait('phase0');
    // The disk fills up: the file the exporter opens next is /dev/full (a line per file: it opens it at its next line).
    const written = fs.readdirSync(traces).sort();
    const last = written.at(-1)!;
    const m = /^(.*-)(\d{4})\.jsonl$/.exec(last)!;
    const full = path.join(traces, `${m[1]}${String(Number(m[2]) + 1).padStart(4, '0')}.jsonl`);
    fs.symlinkSync('/dev/full', full);
    fs.writeFileSync(path.join(cwd, 'full'), '');
    await wait('phase1');
    // Every failed write went to that one file: no other was made while the disk was full.
    expect(fs.readdirSync(traces).sort()).toEqual([...written, path.basename(full)].sort());
    // Room again: the file that failed becomes an ordinary one.
    fs.rmSync(full, { force: true });
    fs.writeFileSync(path.join(cwd, 'room-again'), '');
    const result = await child;
    expect(result.code, result.stderr).toBe(0);
    // Said once when the writes started to fail, once when they resumed.
    const said = result.stderr.split('\n').filter((line) => line.startsWith('afterstop:'));
    expect(said.filter((line) => line.includes('cannot write trace files'))).toHaveLength(1);
    expect(said.filter((line) => line.includes('ENOSPC'))).toHaveLength(1);
    expect(said.filter((line) => line.includes('written again'))).toHaveLength(1);
    // No empty trace file left, and the one that failed holds lines now.
    for (const file of fs.readdirSync(traces)) expect(fs.statSync(path.join(traces, file)).size, file).toBeGreaterThan(0);
    const out = lastJson<{ results: number[][]; room: ExportStats; full: ExportStats; again: ExportStats }>(result);

    const expected = Array.from({ length: 20 }, (_, i) => i * 2);
    expect(out.results).toEqual([expected, expected, expected]);
    expect(out.room.dropped).toBe(0);
    // Every span of the full phase was lost, and counted; none after.
    expect(out.full.dropped).toBeGreaterThan(0);
    expect(out.full.exported).toBe(out.room.exported);
    expect(out.again.dropped).toBe(out.full.dropped);
    expect(out.again.exported).toBeGreaterThan(out.full.exported);

    const report = await analyze({ inputs: [traces], db: ':memory:' });
    expect(report.input.skipped).toEqual([]);
    expect(report.input.spans_read).toBe(out.again.exported);
    const agents = report.groups.map((g) => [g.agent, g.runs]).sort();
    expect(agents).toEqual([
      ['again', 20],
      ['room', 20],
    ]);
  }, 90_000);
});
