import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule } from '../../test/helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/helpers/otlp-receiver.js';

/**
 * Trace context across processes, as a user runs it: an app under `node --import afterstop/register` whose
 * manual tool posts to a service in another process, which records the `traceparent` it got; the app exports
 * over OTLP/HTTP (the real exporter, node:http) to a receiver that records its requests' headers. The tool's
 * body also flushes, so that an export is made from inside the tool's context: telemetry's own request, which
 * must carry nothing.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
let receiver: OtlpReceiver;
let service: ChildProcess;
let serviceUrl: string;

/** The service: answers every request, records the `traceparent` values of each; GET /seen tells them. */
const SERVICE = `
  import http from 'node:http';
  const seen = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/seen') return void res.end(JSON.stringify(seen));
    const values = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'traceparent') values.push(req.rawHeaders[i + 1]);
    seen.push({ method: req.method, path: req.url, traceparent: values });
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  service = spawn(process.execPath, ['--input-type=module', '-e', SERVICE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    service.stdout!.setEncoding('utf8').once('data', (line: string) => resolve((JSON.parse(line) as { port: number }).port));
    service.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
  });
  serviceUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  service.kill();
  await receiver.close();
});

type Seen = { method: string; path: string; traceparent: string[] };

describe('trace context on a tool’s requests, across processes', () => {
  it('the service gets traceparent of afterstop’s request span, a child of the tool span in the exported trace; the commit names it; the exports carry none', async () => {
    const result = await runModule(
      `import { startRun, flush, shutdown } from '${distModule('instrumentation/index.js')}';
       import http from 'node:http';
       const run = startRun({ agentName: 'trace-context' });
       await run.tool({ name: 'charge', callId: 'call_charge', detectCommits: true }, async () => {
         await (await fetch('${serviceUrl}/charge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).text();
         await flush(5000);
       });
       await run.tool({ name: 'lookup', callId: 'call_lookup' }, () => new Promise((resolve, reject) => {
         http.get('${serviceUrl}/lookup', (res) => { res.resume(); res.on('end', resolve); }).on('error', reject);
       }));
       run.end();
       await shutdown();
       console.log(JSON.stringify({ done: true }));`,
      { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, nodeArgs: ['--import', 'afterstop/register'], cwd: root, timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(lastJson<{ done: boolean }>(result).done).toBe(true);
    const seen = (await (await fetch(`${serviceUrl}/seen`)).json()) as Seen[];
    expect(seen.map((s) => [s.method, s.path, s.traceparent.length])).toEqual([
      ['POST', '/charge', 1],
      ['GET', '/lookup', 1],
    ]);
    const spans = await receiver.waitFor((all) => all.some((s) => s.name === 'invoke_agent trace-context'));
    for (const [i, callId] of ['call_charge', 'call_lookup'].entries()) {
      const [, traceId, spanId] = seen[i]!.traceparent[0]!.split('-');
      const request = spans.find((s) => s.spanId === spanId);
      expect(request, callId).toBeDefined();
      const tool = spans.find((s) => s.name.startsWith('execute_tool') && s.attributes['gen_ai.tool.call.id'] === callId)!;
      expect(request!.traceId).toBe(traceId);
      expect(tool.traceId).toBe(traceId);
      expect(request!.parentSpanId).toBe(tool.spanId);
      expect(request!.kind).toBe(3);
    }
    const commit = spans.find((s) => s.name === 'afterstop.tool.commit')!;
    expect(commit.attributes['afterstop.tool.commit.request_span_id']).toBe(seen[0]!.traceparent[0]!.split('-')[2]);
    expect(commit.attributes['afterstop.tool.commit.round_trip_ms']).toEqual(expect.any(Number));
    // Telemetry's own requests (one of them made from inside the tool's body) carry no trace context.
    const exports = receiver.events.filter((e) => e.path === '/v1/traces');
    expect(exports.length).toBeGreaterThanOrEqual(2);
    expect(exports.filter((e) => e.traceparent !== undefined)).toEqual([]);
  });
});
