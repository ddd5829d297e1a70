import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun, withRun } from '../../index.js';
import { observeModelCall } from '../../auto/model-observer.js';
import { startSimulator, type Simulator } from '../../../analyzer/simulator/index.js';
import { captureTraces, named, sleep, type TraceCapture } from '../../../test/helpers/capture.js';

let capture: TraceCapture;
let sim: Simulator;
beforeAll(async () => {
  capture = captureTraces();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
  await capture.close();
});

const post = (url: string, init: RequestInit = {}): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"alice@example.com"}', ...init });

/** node:http, as older clients (axios, got, the SDKs' node-fetch) use it. */
function httpPost(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function commitsOf(runId: string) {
  return named(await capture.spans(runId), 'afterstop.tool.commit').map((s) => s.attributes);
}

describe('commits detected from the HTTP requests a tool makes', () => {
  it('a tool span counts its commits, and the requests still unanswered at its end (their markers may come after it)', async () => {
    const run = startRun({ framework: 'manual' });
    let late: Promise<Response> | undefined;
    await run.tool({ name: 'send_email', callId: 'call_pending', detectCommits: true }, async () => {
      await (await post(`${sim.url}/effects/send_email?delayMs=5`)).json();
      // Fire and forget: the body returns while this request is unanswered.
      late = post(`${sim.url}/effects/send_email?delayMs=200`);
    });
    await (await late!).json();
    run.end();
    const spans = await capture.spans(run.id);
    const tool = spans.find((s) => s.name === 'execute_tool send_email')!;
    expect(tool.attributes['afterstop.tool.commit.count']).toBe(1);
    expect(tool.attributes['afterstop.tool.commit.pending']).toBe(1);
    // The late answer's commit marker is written after the span ended: both markers are on record.
    expect(named(spans, 'afterstop.tool.commit')).toHaveLength(2);
  });

  it('a POST answered 200 through fetch and through node:http is a commit with evidence `response`; GET is not', async () => {
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'send_email', callId: 'call_a', detectCommits: true }, async () => {
      await (await fetch(`${sim.url}/health`)).json();
      await (await post(`${sim.url}/effects/send_email?delayMs=10`)).json();
    });
    await run.tool({ name: 'charge', callId: 'call_b', detectCommits: true }, () => httpPost(`${sim.url}/effects/charge?delayMs=10`));
    run.end();
    const commits = await commitsOf(run.id);
    expect(commits).toHaveLength(2);
    expect(commits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          'gen_ai.tool.call.id': 'call_a',
          'afterstop.tool.commit.evidence': 'response',
          'http.request.method': 'POST',
          'http.response.status_code': 200,
          'server.address': '127.0.0.1',
          'afterstop.cancel.state': 'none',
        }),
        expect.objectContaining({ 'gen_ai.tool.call.id': 'call_b', 'afterstop.tool.commit.evidence': 'response', 'http.request.method': 'POST', 'http.response.status_code': 200 }),
      ]),
    );
  });

  it('a POST whose answer is lost to the abort is a commit with evidence `request_sent`, after the cancel, with how long it went unanswered: the server confirms it committed', async () => {
    const run = startRun();
    const before = sim.ledger.effects.length;
    const tool = run.tool({ name: 'send_email', callId: 'call_c', detectCommits: true }, async ({ signal }) => {
      await post(`${sim.url}/effects/send_email?delayMs=300`, { signal });
    });
    const outcome = tool.then(
      () => 'resolved',
      (e: unknown) => (e as Error).name,
    );
    await sleep(100);
    await run.cancel();
    expect(await outcome).toBe('AbortError');
    run.end();
    await sleep(350);
    const effect = sim.ledger.effects[before];
    expect(effect).toMatchObject({ name: 'send_email', outcome: 'committed', clientClosedBeforeCommit: true });
    const commits = await commitsOf(run.id);
    expect(commits).toEqual([expect.objectContaining({ 'gen_ai.tool.call.id': 'call_c', 'afterstop.tool.commit.evidence': 'request_sent', 'afterstop.cancel.state': 'requested', 'http.request.method': 'POST' })]);
    expect(commits[0]?.['http.response.status_code']).toBeUndefined();
    // How long the request went unanswered: from its body being sent (before the server received it, as the
    // ledger has it) to the abort (after the cancel marker): at least C − received. Counted from the cancel or
    // the abort instead, it would be about 0 (± the µs it is rounded to).
    const spans = await capture.spans(run.id);
    const c = spans.find((s) => s.name === 'afterstop.cancel.request')!.startNs;
    expect(commits[0]?.['afterstop.tool.commit.unanswered_ms']).toBeGreaterThanOrEqual(Number(c - effect!.receivedNs) / 1e6 - 0.001);
  });

  it('no commit: an error answer, a request that never left, a tool without detection, a model call and a nested run inside the tool', async () => {
    const run = startRun();
    await run.tool({ name: 'rejected', detectCommits: true }, async () => {
      await (await post(`${sim.url}/effects/x?delayMs=-1`)).text(); // 400 from the service
    });
    await run.tool({ name: 'never_sent', detectCommits: true }, async () => {
      await post('http://127.0.0.1:9/effects/x').catch(() => undefined); // connection refused
    });
    await run.tool({ name: 'manual_only' }, async () => {
      await (await post(`${sim.url}/effects/x?delayMs=0`)).json();
    });
    await run.tool({ name: 'sub_agent', detectCommits: true }, async () => {
      // A model call made inside the tool (a sub-agent) is the run's, not the tool's: its POST is no commit.
      const call = observeModelCall({ provider: 'openai', framework: 'manual', model: 'gpt-4o' });
      await call.within(async () => (await post(`${sim.url}/effects/x?delayMs=0`)).json());
      call.end({ complete: true });
      // A run started inside the tool (a sub-agent of the manual API) is its own: its requests are not the tool's.
      await withRun({ agentName: 'sub' }, async () => (await post(`${sim.url}/effects/x?delayMs=0`)).json());
    });
    run.end();
    expect(await commitsOf(run.id)).toEqual([]);
  });

  it('a manual commit() says `manual`', async () => {
    const run = startRun();
    await run.tool({ name: 'manual', callId: 'call_m' }, async ({ commit }) => {
      await commit();
    });
    run.end();
    expect(await commitsOf(run.id)).toEqual([expect.objectContaining({ 'gen_ai.tool.call.id': 'call_m', 'afterstop.tool.commit.evidence': 'manual' })]);
  });
});

/**
 * A streamed answer is an answer when it ends (issue 45): a service that answers a POST with an event stream
 * (or NDJSON, or an MCP Streamable HTTP answer) sends its 200 headers before its work is done. The headers are
 * no commit; the end of the body is, and a body cut by the Stop is `request_sent`.
 */
describe('commits of streamed answers', () => {
  /** A service that sends its headers and a first message at once, and the rest when the test says. */
  let server: http.Server;
  let base: string;
  const open: { res: http.ServerResponse; headersNs: bigint }[] = [];
  const nowNs = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const type = new URL(req.url ?? '/', 'http://x').searchParams.get('type') ?? 'text/event-stream';
        res.writeHead(200, { 'content-type': type });
        res.write(type === 'application/json' ? '{"jsonrpc":"2.0",' : 'data: {"progress":1}\n\n');
        open.push({ res, headersNs: nowNs() });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  /** End the latest open answer: its body's end, in ns. */
  const finish = (): bigint => {
    const { res } = open.pop()!;
    const endNs = nowNs();
    res.end('data: {"done":true}\n\n');
    return endNs;
  };
  /** Read a streamed fetch answer: its first chunk (then `between` runs), then the rest. */
  async function readStreamed(response: Response, between: () => void): Promise<void> {
    const reader = response.body!.getReader();
    await reader.read();
    between();
    while (!(await reader.read()).done);
  }

  const streamedTypes = ['text/event-stream', 'application/x-ndjson; charset=utf-8'];
  for (const type of streamedTypes) {
    it(`fetch, ${type}: the commit is dated at the body's end, not at its headers`, async () => {
      const run = startRun();
      let endNs = 0n;
      await run.tool({ name: 'send_email', callId: 'call_s', detectCommits: true }, async () => {
        const response = await post(`${base}/mcp?type=${encodeURIComponent(type)}`);
        await readStreamed(response, () => (endNs = finish()));
      });
      run.end();
      const spans = named(await capture.spans(run.id), 'afterstop.tool.commit');
      expect(spans.map((s) => s.attributes['afterstop.tool.commit.evidence'])).toEqual(['response']);
      expect(spans[0]!.attributes['http.response.status_code']).toBe(200);
      expect(spans[0]!.startNs >= endNs).toBe(true);
    });
  }

  it('fetch, an MCP Streamable HTTP request (MCP-Protocol-Version) answered as JSON: a commit only when the body ends', async () => {
    const run = startRun();
    let endNs = 0n;
    await run.tool({ name: 'send_email', callId: 'call_m', detectCommits: true }, async () => {
      const response = await post(`${base}/mcp?type=application/json`, { headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' } });
      await readStreamed(response, () => (endNs = finish()));
    });
    run.end();
    const spans = named(await capture.spans(run.id), 'afterstop.tool.commit');
    expect(spans.map((s) => s.attributes['afterstop.tool.commit.evidence'])).toEqual(['response']);
    expect(spans[0]!.startNs >= endNs).toBe(true);
  });

  it('fetch: an event stream cut by the Stop after its headers is `request_sent`, after the cancel, with its status', async () => {
    const run = startRun();
    const tool = run.tool({ name: 'send_email', callId: 'call_x', detectCommits: true }, async ({ signal }) => {
      const response = await post(`${base}/mcp`, { signal });
      await readStreamed(response, () => void run.cancel());
    });
    expect(
      await tool.then(
        () => 'resolved',
        (e: unknown) => (e as Error).name,
      ),
    ).toBe('AbortError');
    run.end();
    open.pop()?.res.destroy();
    const commits = await commitsOf(run.id);
    expect(commits).toEqual([expect.objectContaining({ 'afterstop.tool.commit.evidence': 'request_sent', 'afterstop.cancel.state': 'requested', 'http.response.status_code': 200 })]);
  });

  it('node:http: an event stream is a commit when the response is read to its end, `request_sent` when it is cut', async () => {
    const run = startRun();
    let endNs = 0n;
    const stream = (onFirst: (req: http.ClientRequest) => void): Promise<void> =>
      new Promise((resolve) => {
        const req = http.request(`${base}/mcp`, { method: 'POST' }, (res) => {
          res.once('data', () => onFirst(req));
          res.on('data', () => {});
          res.on('close', () => resolve());
        });
        req.on('error', () => resolve());
        req.end('{}');
      });
    await run.tool({ name: 'whole', callId: 'call_w', detectCommits: true }, () => stream(() => (endNs = finish())));
    await run.tool({ name: 'cut', callId: 'call_k', detectCommits: true }, () => stream((req) => req.destroy()));
    open.pop()?.res.destroy();
    run.end();
    const spans = named(await capture.spans(run.id), 'afterstop.tool.commit');
    const byCall = Object.fromEntries(spans.map((s) => [s.attributes['gen_ai.tool.call.id'], s]));
    expect(byCall['call_w']?.attributes['afterstop.tool.commit.evidence']).toBe('response');
    expect(byCall['call_w']!.startNs >= endNs).toBe(true);
    expect(byCall['call_k']?.attributes['afterstop.tool.commit.evidence']).toBe('request_sent');
    expect(spans).toHaveLength(2);
  });
});
