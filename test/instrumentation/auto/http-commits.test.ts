import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun, withRun } from '../../../instrumentation/index.js';
import { observeModelCall } from '../../../instrumentation/auto/model-observer.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { captureTraces, named, sleep, type TraceCapture } from '../../helpers/capture.js';

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

const post = (url: string, init: RequestInit = {}): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"alice@example.com"}', ...init });

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
        expect.objectContaining({ 'gen_ai.tool.call.id': 'call_a', 'afterstop.tool.commit.evidence': 'response', 'http.request.method': 'POST', 'http.response.status_code': 200, 'server.address': '127.0.0.1', 'afterstop.cancel.state': 'none' }),
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
    const outcome = tool.then(() => 'resolved', (e: unknown) => (e as Error).name);
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
    // How long the request went unanswered: from its body reaching the server (at once) to the abort, 100 ms on.
    expect(commits[0]?.['afterstop.tool.commit.unanswered_ms']).toBeGreaterThanOrEqual(95);
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
