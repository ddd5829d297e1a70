import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoingServer, tricklingServer, type LocalServer } from '../../../test/helpers/hostile-http.js';
import { runCli, type CliResult } from '../../../test/helpers/cli.js';

/**
 * `leak-report --push-gateway`, the built CLI, against a gateway that fails: no password on stderr, no
 * server body echoed raw, and an answer that never ends given up at the deadline.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const inputs = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => path.join(golden, f));
const PASSWORD = 's3cret-Pa55';
const BASIC = Buffer.from(`pusher:${PASSWORD}`).toString('base64');

let echo: LocalServer;
let trickle: LocalServer;
beforeAll(async () => {
  echo = await echoingServer(500);
  trickle = await tricklingServer();
});
afterAll(async () => {
  await echo?.close();
  await trickle?.close();
});

/** The CLI in a child process, waited on to its exit (killed past a generous bound, which the test then fails on). */
const run = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(['leak-report', ...inputs, '--db', ':memory:', '--format', 'json', ...args], { env });

describe('a failed push', () => {
  it('a gateway that echoes the request in its error: its status said, the password and the Authorization header masked, its body cut to a line', async () => {
    const url = echo.url.replace('http://', `http://pusher:${PASSWORD}@`);
    const out = await run(['--push-gateway', url]);
    expect(out.status).toBe(2);
    // The push did carry the credentials (as Basic auth): they are masked in what is printed, not lost.
    expect(echo.requests.at(-1)?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(out.stderr).toContain('could not push the metrics to http://pusher:***@127.0.0.1:');
    expect(out.stderr).toContain('answered 500');
    expect(out.stderr).not.toContain(PASSWORD);
    expect(out.stderr).not.toContain(BASIC);
    expect(out.stderr).toMatch(/authorization: \*\*\*/i);
    const line = out.stderr.split('\n').find((l) => l.includes('could not push'));
    expect(line!.length).toBeLessThan(500);
    expect(JSON.parse(out.stdout)).toHaveProperty('totals');
  });

  it('a gateway that trickles its answer a byte a second: given up at the deadline (AFTERSTOP_HTTP_DEADLINE_MS), exit 2, said on stderr', async () => {
    const out = await run(['--push-gateway', trickle.url], { AFTERSTOP_HTTP_DEADLINE_MS: '1500' });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(`could not push the metrics to ${trickle.url}: the Pushgateway at ${trickle.url} did not answer within 1500 ms`);
    expect(JSON.parse(out.stdout)).toHaveProperty('totals');
  }, 90_000);
});
