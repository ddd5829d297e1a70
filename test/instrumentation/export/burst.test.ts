import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { distModule, lastJson, runModule, tempCwd } from '../../helpers/child.js';

/**
 * A burst of Stops: thousands of concurrent runs cancelled at once, with the file exporter and a healthy
 * disk. The burst fills the queue before any export can run; every span must still reach the files, and
 * above all every cancel request (the product's evidence).
 */
const INDEX = distModule('instrumentation/index.js');
const folder = tempCwd();

const burst = (runs: number, maxQueueSize: number) => `
  import { setup, startRun, shutdown, exportStats } from ${JSON.stringify(INDEX)};
  setup({ exporter: 'file', tracesDir: 'traces', maxQueueSize: ${maxQueueSize} });
  const runs = Array.from({ length: ${runs} }, (_, i) => startRun({ agentName: 'support', conversationId: 'c' + i }));
  await Promise.all(runs.map((r) => r.cancel({ source: 'user' }).then(() => { r.acknowledge(); r.end(); })));
  const stats = exportStats();
  await shutdown();
  console.log(JSON.stringify(stats));
`;

describe('a burst of Stops', () => {
  it('10,000 runs cancelled at once: every span written, every cancel request among them, nothing dropped', async () => {
    const result = await runModule(burst(10_000, 4096), { cwd: folder(), timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(lastJson<{ dropped: number }>(result).dropped).toBe(0);
    const { spans, skipped } = await readTraces(path.join(folder(), 'traces'));
    expect(skipped).toEqual([]);
    const count = (name: string) => new Set(spans.filter((s) => s.name === name).map((s) => s.spanId)).size;
    expect(count('afterstop.cancel.request')).toBe(10_000);
    expect(count('afterstop.cancel.ack')).toBe(10_000);
    expect(count('invoke_agent support')).toBe(10_000);
  }, 90_000);
});
