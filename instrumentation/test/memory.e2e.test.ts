import { describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule, tempCwd } from '../../test/helpers/child.js';
import { closedPort } from '../../test/helpers/otlp-receiver.js';

/**
 * Memory after thousands of runs, in a child process with `--expose-gc`:
 * every run, tool call and model call is collected once it has ended and been
 * exported, and with the exporter down the queue holds what it may and no more
 * (the heap does not grow with the runs). The heap figures are printed for the
 * closing note; what is asserted is that nothing is retained.
 */
const INDEX = distModule('instrumentation/index.js');
const tempFolder = tempCwd();

/** Runs in the orders the property test drives, each object watched through a WeakRef. */
const WORKLOAD = `
  import { setup, startRun, flush, exportStats, shutdown } from ${JSON.stringify(INDEX)};
  const refs = [];
  const heap = async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 0));
      globalThis.gc();
    }
    return process.memoryUsage().heapUsed;
  };
  async function runs(n, tag) {
    for (let i = 0; i < n; i++) {
      const run = startRun({ agentName: tag, conversationId: tag + '-' + i, settleDeadlineMs: 50 });
      refs.push(new WeakRef(run));
      if (i % 5 === 0) await run.cancel({ source: 'user' });
      const value = await run.tool({ name: 'lookup', callId: tag + '-' + i, arguments: { i } }, async (ctx) => {
        refs.push(new WeakRef(ctx));
        if (i % 7 === 0) await ctx.commit();
        return i;
      });
      if (value !== i) throw new Error('value changed');
      const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
      refs.push(new WeakRef(model));
      for (let c = 0; c < 5; c++) model.chunk();
      model.end();
      if (i % 5 === 0) { await run.cancel(); run.acknowledge(); }
      run.end();
      if (i % 11 === 0) run.end();
    }
  }
`;

describe('memory', () => {
  it('after 3,000 runs (cancelled, committed, ended twice), ended and exported: every run, tool and model call is collected; the heap is back near its baseline', async () => {
    const script = `${WORKLOAD}
      setup({ exporter: 'file', tracesDir: 'traces', scheduledDelayMs: 20 });
      await runs(50, 'warm');
      await flush(5000);
      const baseline = await heap();
      refs.length = 0;
      await runs(3000, 'load');
      await flush(5000);
      await new Promise((r) => setTimeout(r, 200)); // the settle deadlines pass
      const after = await heap();
      const alive = refs.filter((r) => r.deref() !== undefined).length;
      console.log(JSON.stringify({ watched: refs.length, alive, baseline, after, stats: exportStats() }));
      await shutdown();
    `;
    const result = await runModule(script, { cwd: tempFolder(), nodeArgs: ['--expose-gc'], timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    const out = lastJson<{ watched: number; alive: number; baseline: number; after: number; stats: { dropped: number; queued: number } }>(result);
    console.log(`memory: ${out.watched} objects watched, ${out.alive} alive; heap ${(out.baseline / 2 ** 20).toFixed(1)} MiB before, ${(out.after / 2 ** 20).toFixed(1)} MiB after 3,000 runs`);
    expect(out.watched).toBe(3000 * 3);
    expect(out.alive).toBe(0);
    expect(out.stats).toMatchObject({ dropped: 0, queued: 0 });
  }, 150_000);

  it('with the collector down, the heap after 20,000 runs is what it was after 5,000: the queue is full at both and holds no more than its Stop markers', async () => {
    const port = await closedPort();
    const script = `${WORKLOAD}
      setup({ exporter: 'otlp', scheduledDelayMs: 20, exportTimeoutMs: 200, maxQueueSize: 2048 });
      await runs(5000, 'first');
      const at5k = await heap();
      const queued5k = exportStats().queued;
      await runs(15000, 'more');
      const at20k = await heap();
      console.log(JSON.stringify({ at5k, at20k, queued5k, stats: exportStats() }));
      await shutdown();
      process.exit(0);
    `;
    const result = await runModule(script, {
      cwd: tempFolder(),
      nodeArgs: ['--expose-gc'],
      timeoutMs: 180_000,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    expect(result.code, result.stderr).toBe(0);
    const out = lastJson<{ at5k: number; at20k: number; queued5k: number; stats: { dropped: number; queued: number } }>(result);
    const growth = (out.at20k - out.at5k) / 2 ** 20;
    console.log(
      `memory, collector down: heap ${(out.at5k / 2 ** 20).toFixed(1)} MiB after 5,000 runs, ${(out.at20k / 2 ** 20).toFixed(1)} MiB after 20,000 (${growth.toFixed(1)} MiB), ${out.stats.dropped} spans dropped`,
    );
    // The queue holds 2,048 spans and, beyond them, every Stop marker (a run in five is cancelled: 4,000 of
    // them, within the queue's Stop reserve of 16,384; span-queue.ts).
    expect(out.stats.queued).toBeLessThanOrEqual(2048 + 4000);
    expect(out.stats.dropped).toBeGreaterThan(15000);
    // 15,000 more runs (about 60,000 spans) retained: at least 60 MiB. Nothing retained but their 3,000 Stop
    // markers (some 5 MiB): a few MiB.
    expect(growth).toBeLessThan(8);
  }, 200_000);
});
