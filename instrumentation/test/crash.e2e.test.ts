import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTraces, type FlatSpan, type ReadResult } from '../../analyzer/index.js';
import { distModule, runModule, tempDir, type ChildResult } from '../../test/helpers/child.js';

/**
 * A process killed with SIGKILL right after `await run.cancel()` (or an
 * awaited ghost commit) must leave that evidence on disk. scheduledDelayMs is
 * one minute and the batch size is far above what the child queues: only the
 * flush on cancel / ghost commit can explain the data being there.
 */

const INDEX = distModule('instrumentation/index.js');

let dir: string;

beforeEach(() => {
  dir = tempDir();
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Run `body` in a child that set up the file exporter into `dir`, by config or
 * by AFTERSTOP_* variables. A crash test's body ends by killing its own process.
 */
function crashingChild(body: string, via: 'config' | 'env' = 'config'): Promise<ChildResult> {
  const config = via === 'config' ? `{ exporter: 'file', tracesDir: ${JSON.stringify(dir)}, scheduledDelayMs: 60000 }` : `{ scheduledDelayMs: 60000 }`;
  const script = `
    import { setup, startRun } from ${JSON.stringify(INDEX)};
    const { mode } = setup(${config});
    if (mode !== 'own') throw new Error('expected afterstop to start its own SDK, got ' + mode);
    ${body}
    console.log('still alive');
  `;
  const env: Record<string, string> = via === 'env' ? { AFTERSTOP_EXPORTER: 'file', AFTERSTOP_TRACES_DIR: dir } : {};
  return runModule(script, { cwd: dir, timeoutMs: 20_000, env });
}

async function onDisk(): Promise<ReadResult> {
  if (!fs.existsSync(dir)) return { spans: [], skipped: [], lines: 0 };
  return readTraces(dir);
}

const named = (spans: FlatSpan[], name: string): FlatSpan[] => spans.filter((s) => s.name === name);

function expectKilled(result: ChildResult): void {
  expect(result.timedOut).toBe(false);
  expect(result.signal).toBe('SIGKILL');
  expect(result.code).toBeNull();
  expect(result.stdout).not.toContain('still alive');
  expect(result.stderr).toBe('');
}

describe('evidence survives SIGKILL', () => {
  it('the cancel request is on disk when the process is killed right after `await run.cancel()`', async () => {
    const result = await crashingChild(
      `
      const run = startRun({ agentName: 'crash', runId: 'run-crash' });
      await run.tool({ name: 'lookup', callId: 'call-before', effect: 'read' }, () => 'done');
      await run.cancel({ source: 'user', reason: 'crash test' });
      process.kill(process.pid, 'SIGKILL');
    `,
      'env',
    );
    expectKilled(result);

    const read = await onDisk();
    expect(read.skipped).toEqual([]);
    const requests = named(read.spans, 'afterstop.cancel.request');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.attributes).toMatchObject({
      'afterstop.run.id': 'run-crash',
      'afterstop.cancel.source': 'user',
      'afterstop.cancel.reason': 'crash test',
      'afterstop.inflight.tool_calls': 0,
    });
    expect(requests[0]!.resource['afterstop.schema.version']).toBe('0.1');
    // What was queued before the cancel went out with it.
    expect(named(read.spans, 'execute_tool lookup')).toHaveLength(1);
    // The run span never ended: only the marker tells of the Stop.
    expect(named(read.spans, 'invoke_agent crash')).toHaveLength(0);
  });

  it('a ghost commit is on disk, with cancel state "requested", when the process is killed right after `await ctx.commit()`', async () => {
    const result = await crashingChild(`
      const run = startRun({ agentName: 'ghost', runId: 'run-ghost' });
      await run.tool({ name: 'send_email', callId: 'call-ghost', effect: 'irreversible', idempotencyKey: 'mail-7' }, async (ctx) => {
        await run.cancel({ source: 'user', reason: 'ghost test' });
        // The side effect completes anyway after Stop.
        await ctx.commit();
        process.kill(process.pid, 'SIGKILL');
      });
    `);
    expectKilled(result);

    const read = await onDisk();
    expect(read.skipped).toEqual([]);
    const commits = named(read.spans, 'afterstop.tool.commit');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({
      'afterstop.cancel.state': 'requested',
      'gen_ai.tool.name': 'send_email',
      'gen_ai.tool.call.id': 'call-ghost',
      'afterstop.tool.effect': 'irreversible',
      'afterstop.tool.idempotency_key': 'mail-7',
      'afterstop.run.id': 'run-ghost',
    });
    const starts = named(read.spans, 'afterstop.tool.start');
    expect(starts).toHaveLength(1);
    expect(starts[0]!.attributes['gen_ai.tool.call.id']).toBe('call-ghost');
    expect(commits[0]!.traceId).toBe(starts[0]!.traceId);
    expect(named(read.spans, 'afterstop.cancel.request')).toHaveLength(1);
    // The tool span never ended; the commit marker is its child all the same.
    expect(named(read.spans, 'execute_tool send_email')).toHaveLength(0);
    expect(commits[0]!.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(commits[0]!.parentSpanId).not.toBe(starts[0]!.parentSpanId);
    // The commit line came after the cancel line: its own flush wrote it.
    const request = named(read.spans, 'afterstop.cancel.request')[0]!;
    expect(commits[0]!.line).toBeGreaterThan(request.line);
  });

  it('a tool call still open at an export has its start marker on disk when the process is killed in it', async () => {
    const result = await crashingChild(`
      const { flush } = await import(${JSON.stringify(INDEX)});
      const run = startRun({ agentName: 'hang', runId: 'run-hang' });
      await run.tool({ name: 'charge', callId: 'call-hang', effect: 'irreversible' }, async () => {
        await flush(5000);
        process.kill(process.pid, 'SIGKILL');
      });
    `);
    expectKilled(result);
    const read = await onDisk();
    expect(read.skipped).toEqual([]);
    const starts = named(read.spans, 'afterstop.tool.start');
    expect(starts).toHaveLength(1);
    expect(starts[0]!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call-hang', 'afterstop.tool.effect': 'irreversible', 'afterstop.run.id': 'run-hang' });
    expect(named(read.spans, 'execute_tool charge')).toHaveLength(0);
  });

  it('control: without a cancel, nothing is written before the kill', async () => {
    const result = await crashingChild(`
      const run = startRun({ agentName: 'control', runId: 'run-control' });
      const calls = [];
      for (let i = 0; i < 20; i++) calls.push(await run.tool({ name: 'lookup', effect: 'read' }, async (ctx) => { await ctx.commit(); return i; }));
      run.end();
      await new Promise((resolve) => setTimeout(resolve, 50));
      process.kill(process.pid, 'SIGKILL');
    `);
    expectKilled(result);
    const read = await onDisk();
    // Proves the two tests above: with a one-minute delay, queued spans die with the process.
    expect(read.spans).toEqual([]);
  });
});

describe('the process ends without shutdown()', () => {
  /** A run whose spans are all queued (one-minute delay) when the process ends; `ending` ends it. */
  const queuedRun = (ending: string): Promise<ChildResult> =>
    crashingChild(`
      const run = startRun({ agentName: 'exit', runId: 'run-exit' });
      await run.tool({ name: 'lookup', callId: 'call-exit', effect: 'read' }, () => 1);
      run.end();
      ${ending}
    `);

  const expectAllOnDisk = async (): Promise<void> => {
    const read = await onDisk();
    expect(read.skipped).toEqual([]);
    // The tool call ended before any export: its span tells of its start, no marker is needed.
    expect(read.spans.map((s) => s.name).sort()).toEqual(['execute_tool lookup', 'invoke_agent exit']);
  };

  it('a natural exit writes what is queued (beforeExit flush)', async () => {
    const result = await queuedRun('');
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('still alive');
    await expectAllOnDisk();
  });

  it('process.exit() writes what is queued (synchronous flush on exit) and keeps the exit code', async () => {
    const result = await queuedRun('process.exit(3);');
    expect(result.code).toBe(3);
    expect(result.stdout).not.toContain('still alive');
    await expectAllOnDisk();
  });

  it('an uncaught exception writes what is queued and still fails the process', async () => {
    const result = await queuedRun(`setImmediate(() => { throw new Error('app bug'); });`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('app bug');
    await expectAllOnDisk();
  });
});

describe('a tool call open at exit', () => {
  it('process.exit() inside a tool body writes its start marker (the synchronous flush writes the deferred markers)', async () => {
    const result = await crashingChild(`
      const run = startRun({ agentName: 'exit-open', runId: 'run-exit-open' });
      await run.tool({ name: 'send', callId: 'call-exit-open', effect: 'irreversible' }, () => process.exit(4));
    `);
    expect(result.code).toBe(4);
    const spans = (await onDisk()).spans;
    expect(named(spans, 'afterstop.tool.start').map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call-exit-open']);
    expect(named(spans, 'execute_tool send')).toHaveLength(0);
  });
});

describe('a cancel and an exit in the same tick', () => {
  it('still leaves the cancel request on disk (the flush had begun, the exit hook finishes it)', async () => {
    const result = await crashingChild(`
      const run = startRun({ agentName: 'sigint' });
      void run.cancel({ source: 'shutdown', reason: 'SIGINT' });
      process.exit(130);
    `);
    expect(result.code).toBe(130);
    const request = named((await onDisk()).spans, 'afterstop.cancel.request');
    expect(request).toHaveLength(1);
    expect(request[0]!.attributes['afterstop.cancel.source']).toBe('shutdown');
  });
});
