import { execFile, exec } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChildProcessInstrumentation } from '../auto/child-processes.js';
import { startRun } from '../index.js';
import { captureTraces, named, sleep, type TraceCapture } from '../../test/helpers/capture.js';
import type { FlatSpan } from '../../analyzer/index.js';

/**
 * Process trees, automatically (auto/child-processes.ts, process.ts, process-tree.ts): a child process spawned
 * in a tool's context is the run's, and so is what it leaves behind. A shell that starts `sleep 30 &` and
 * returns leaves the sleep reparented (out of any parent-pid walk): it is found by the run's mark in its
 * environment, and is an orphan past the grace period after the Stop. Linux only (/proc), as the e2e tier.
 */
let capture: TraceCapture;
const instrumentation = new ChildProcessInstrumentation();
const leftBehind: number[] = [];
beforeAll(() => {
  capture = captureTraces({ processGraceMs: 300 });
  instrumentation.enable();
});
afterAll(async () => {
  instrumentation.disable();
  for (const pid of leftBehind) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await capture.close();
});

/** The run's spans once `name` markers have come (polled, bounded). */
async function spansWith(runId: string, name: string): Promise<FlatSpan[]> {
  let spans = await capture.spans(runId);
  for (let waited = 0; named(spans, name).length === 0 && waited < 10_000; waited += 50) {
    await sleep(50);
    spans = await capture.spans(runId);
  }
  return spans;
}

describe('process trees of a run', () => {
  it("a tool's shell that left `sleep 30 &` behind: the sleep (reparented) is an orphan past the grace period after Stop; the shell, ended, is not; first words only", async () => {
    const run = startRun({});
    const shellPid = await run.tool({ name: 'start_worker' }, async () => {
      const child = execFile('sh', ['-c', 'sleep 30 & echo started']);
      await new Promise((resolve) => child.once('exit', resolve));
      return child.pid;
    });
    void run.cancel();
    run.end();
    const spans = await spansWith(run.id, 'afterstop.process.orphan');
    const spawns = named(spans, 'afterstop.process.spawn');
    const orphans = named(spans, 'afterstop.process.orphan');
    for (const o of orphans) leftBehind.push(o.attributes['process.pid'] as number);
    expect(spawns.find((s) => s.attributes['process.pid'] === shellPid)?.attributes).toMatchObject({ 'process.parent_pid': process.pid, 'process.executable.name': 'sh' });
    expect(orphans.map((o) => o.attributes['process.executable.name'])).toEqual(['sleep']);
    // Its shell exited: the sleep was reparented, no longer under the app.
    expect(orphans[0]!.attributes['process.parent_pid']).not.toBe(shellPid);
    const stop = named(spans, 'afterstop.cancel.request')[0]!;
    expect(orphans[0]!.startNs - stop.startNs).toBeGreaterThanOrEqual(300_000_000n);
    for (const s of [...spawns, ...orphans]) expect(String(s.attributes['process.executable.name'])).not.toMatch(/\s|30|started/);
  });

  it('exec (a shell command line) in the run: its shell is the child, named by its first word (never the command line)', async () => {
    const run = startRun({});
    const { stdout } = await run.tool({ name: 'say' }, () => promisify(exec)('echo done'));
    expect(stdout.trim()).toBe('done');
    void run.cancel();
    run.end();
    let spans = await capture.spans(run.id);
    for (let waited = 0; named(spans, 'afterstop.process.spawn').length === 0 && waited < 5000; waited += 50) {
      await sleep(50);
      spans = await capture.spans(run.id);
    }
    expect(named(spans, 'afterstop.process.spawn').map((s) => s.attributes['process.executable.name'])).toEqual(['sh']);
  });

  it('a spawn outside any run is not watched, and its environment is left alone', async () => {
    const { stdout } = await promisify(execFile)('sh', ['-c', 'echo "${AFTERSTOP_RUN_ID:-none}"']);
    expect(stdout.trim()).toBe('none');
    const run = startRun({});
    const inRun = await run.tool({ name: 'env' }, () => promisify(execFile)('sh', ['-c', 'echo "$AFTERSTOP_RUN_ID"']));
    run.end();
    expect(inRun.stdout.trim()).toBe(run.id);
  });
});
