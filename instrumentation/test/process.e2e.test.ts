import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

function sleeper(seconds: number) {
  return spawn(process.execPath, ['-e', `setTimeout(() => {}, ${seconds * 1000})`], { stdio: 'ignore' });
}

describe('child process markers', () => {
  it('marks the spawn, and an orphan only when the child outlives its run by the grace period', async () => {
    const run = startRun({});
    const survivor = sleeper(30);
    const quitter = sleeper(30);
    run.trackProcess(survivor, { graceMs: 150 });
    run.trackProcess(quitter, { graceMs: 1000 });
    run.end();
    const ended = Date.now();
    quitter.kill('SIGTERM');
    await new Promise((resolve) => quitter.once('exit', resolve));
    // Wait past both grace periods; the survivor's check fires after 150 ms.
    await sleep(Math.max(0, 1300 - (Date.now() - ended)));
    let spans = await capture.spans(run.id);
    for (let waited = 0; named(spans, 'afterstop.process.orphan').length === 0 && waited < 5000; waited += 50) {
      await sleep(50);
      spans = await capture.spans(run.id);
    }
    survivor.kill('SIGKILL');
    const spawns = named(spans, 'afterstop.process.spawn');
    expect(spawns.map((s) => s.attributes['process.pid']).sort()).toEqual([survivor.pid, quitter.pid].sort());
    expect(spawns[0]!.attributes['process.executable.name']).toMatch(/node/);
    const orphan = only(spans, 'afterstop.process.orphan');
    expect(orphan.attributes['process.pid']).toBe(survivor.pid);
    expect(orphan.startNs - only(spans, 'invoke_agent').endNs).toBeGreaterThanOrEqual(150_000_000n);
  });

  it('writes no orphan for a child that ended before its run', async () => {
    const run = startRun({});
    const child = sleeper(0);
    run.trackProcess(child, { graceMs: 10 });
    await new Promise((resolve) => child.once('exit', resolve));
    run.end();
    await sleep(50);
    expect(named(await capture.spans(run.id), 'afterstop.process.orphan')).toHaveLength(0);
  });
});
