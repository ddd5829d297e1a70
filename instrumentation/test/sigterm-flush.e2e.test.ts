import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { distModule, runModule, tempDir, type ChildResult } from '../../test/helpers/child.js';

/**
 * A process ended by SIGTERM (a stdio MCP server its client closes, a container stopped) has no 'exit' event:
 * what afterstop had queued is flushed first, then the process ends by the signal as it would have. An app
 * with its own SIGTERM handler decides itself; its exit flushes. scheduledDelayMs is one minute: only the
 * flush at the signal (or at exit) explains the spans being on disk.
 */
const INDEX = distModule('instrumentation/index.js');

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function child(handler: string): Promise<ChildResult> {
  return runModule(
    `
    import { setup, startRun } from ${JSON.stringify(INDEX)};
    setup({ exporter: 'file', tracesDir: ${JSON.stringify(dir)}, scheduledDelayMs: 60000 });
    ${handler}
    const run = startRun({ agentName: 'server', runId: 'run-term' });
    await run.tool({ name: 'send_email', callId: 'call-1', effect: 'irreversible' }, () => 'sent');
    run.end();
    setInterval(() => {}, 1000);
    process.kill(process.pid, 'SIGTERM');
  `,
    { cwd: dir, timeoutMs: 20_000 },
  );
}

const toolSpans = async (): Promise<string[]> => (fs.existsSync(dir) ? (await readTraces(dir)).spans.filter((s) => s.name.startsWith('execute_tool ')).map((s) => s.name) : []);

describe('SIGTERM', () => {
  it('without a handler of the app: the queued spans are on disk, and the process still ends by SIGTERM', async () => {
    const result = await child('');
    expect(result.timedOut).toBe(false);
    expect(result.signal).toBe('SIGTERM');
    expect(result.stderr).toBe('');
    expect(await toolSpans()).toEqual(['execute_tool send_email']);
  });

  it("with the app's own handler: the app decides (here it exits 0), and its exit flushes", async () => {
    const result = await child(`process.on('SIGTERM', () => { console.log('app handled'); process.exit(0); });`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('app handled');
    expect(await toolSpans()).toEqual(['execute_tool send_email']);
  });
});
