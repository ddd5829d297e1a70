import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoingServer, tricklingServer, type LocalServer } from '../../../../test/helpers/hostile-http.js';
import { runCli, type CliResult } from '../../../../test/helpers/cli.js';

/**
 * `leak-report --clickhouse URL`, the built CLI, against servers that fail as a hostile or broken one may:
 * an error that echoes the request (its Authorization header included), an answer trickled a byte a second,
 * and URLs the client cannot take. Nothing secret is printed; each ends, with exit 2 and one clear line.
 */
const PASSWORD = 's3cret-Pa55';
const BASIC = Buffer.from(`reader:${PASSWORD}`).toString('base64');

let echo: LocalServer;
let trickle: LocalServer;
beforeAll(async () => {
  echo = await echoingServer(500, 'Code: 62. DB::Exception: ');
  trickle = await tricklingServer();
});
afterAll(async () => {
  await echo?.close();
  await trickle?.close();
});

/** The CLI in a child process, waited on to its exit (killed past a generous bound, which the test then fails on). */
const run = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(['leak-report', '--no-progress', ...args], { env });

describe('leak-report --clickhouse against a failing server', () => {
  it('an error that echoes the request: one line, exit 2, no password and no Authorization header (the client library logs nothing of it)', async () => {
    const out = await run(['--clickhouse', echo.url.replace('http://', `http://reader:${PASSWORD}@`)]);
    expect(out.status).toBe(2);
    expect(echo.requests.at(-1)?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(out.stderr).not.toContain(PASSWORD);
    expect(out.stderr).not.toContain(BASIC);
    expect(out.stderr).toMatch(/^afterstop: ClickHouse at http:\/\/127\.0\.0\.1:\d+, table otel\.otel_traces: Code: 62\. DB::Exception: bad request: .*authorization: \*\*\*/);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an answer trickled a byte a second: given up at the deadline (AFTERSTOP_HTTP_DEADLINE_MS), exit 2, said in one line', async () => {
    const out = await run(['--clickhouse', trickle.url], { AFTERSTOP_HTTP_DEADLINE_MS: '1500' });
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/ClickHouse at http:\/\/127\.0\.0\.1:\d+, table otel\.otel_traces: no whole answer to .* within 1500 ms \(AFTERSTOP_HTTP_DEADLINE_MS sets the deadline\)/);
  }, 90_000);

  it('user and password as URL parameters, or a password that is not valid percent-encoding: exit 2, one line, the password not printed', async () => {
    const params = await run(['--clickhouse', `${echo.url}/?user=reader&password=${PASSWORD}`]);
    expect(params.status).toBe(2);
    expect(params.stderr).toContain('give the user and password before the host (user:password@ in the URL, percent-encoded), not as URL parameters (user, password)');
    expect(params.stderr).not.toContain(PASSWORD);
    expect(params.stderr.trim().split('\n')).toHaveLength(1);
    const encoding = await run(['--clickhouse', echo.url.replace('http://', `http://reader:${PASSWORD}%zz@`)]);
    expect(encoding.status).toBe(2);
    expect(encoding.stderr).toContain("the URL's password is not valid percent-encoding");
    expect(encoding.stderr).not.toContain(PASSWORD);
    expect(encoding.stderr.trim().split('\n')).toHaveLength(1);
  });
});
