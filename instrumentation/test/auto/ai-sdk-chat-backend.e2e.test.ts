import { describe, expect, it } from 'vitest';
import { agreesWithTruth, sdkApps, truthAfterStop } from '../../../test/helpers/sdk-app.js';
import { versionedApps } from '../../../test/helpers/versioned-app.js';

/**
 * The Stop most users press: the browser closes its request to a chat backend. The real `ai` package on a
 * node:http server (pipeUIMessageStreamToResponse, the SDK aborted when the response closes), a real
 * fetch that aborts mid tool call, under `node --import afterstop/register`.
 */
const { app: appOf, runApp } = sdkApps();
const versioned = versionedApps();
const AI_7 = { ai: 'ai-7.0.173', '@ai-sdk/openai': 'ai-sdk-openai-4.0.118' };
/** The tool's POST, sent before Stop and answered after it: a possible ghost whose round trip holds the Stop (possible_kind across_stop). */
const ACROSS_STOP = /^send_email \(effect unknown\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/;
const possibleGhosts = (r: { report: { findings: { kind: string; detail: string }[] } }): string[] => r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail);

describe.each([
  ['6', (file: string): string => appOf(file)],
  ['7', (file: string): string => versioned(file, AI_7)],
])('AI SDK %s', (_major, app) => {
  describe('an AI SDK chat backend on node:http', () => {
    it('the browser aborts its fetch while the tool runs: the run is cancelled, acknowledged when the SDK stopped, ended; the e-mail a possible ghost (its round trip holds the Stop); the server keeps serving', async () => {
      const r = await runApp(app('ai-sdk-chat-server.mjs'), 'stop-during-tool');
      expect(r.out).toMatchObject({ served: 1, aborted: 1, error: 'AbortError', health: { ok: true, served: 1 } });
      expect(truthAfterStop(r).ghostCommits).toBe(1);
      const t = r.report.totals;
      expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, unended_runs: 0, ghost_commits: 0, ghost_commits_possible: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
      expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['vercel-ai', 'chat-backend']]);
      agreesWithTruth(r);
    });
  });

  describe('an AI SDK chat backend on a Web-standard server (Hono on @hono/node-server)', () => {
    it('toUIMessageStreamResponse, the SDK aborted by the request’s signal; the browser aborts mid tool call: cancelled, acknowledged, ended, the e-mail a possible ghost (its round trip holds the Stop); the server keeps serving', async () => {
      const r = await runApp(app('ai-sdk-hono-server.mjs'), 'stop-during-tool');
      expect(r.out).toMatchObject({ served: 1, aborted: 1, error: 'AbortError', health: { ok: true, served: 1 } });
      expect(truthAfterStop(r).ghostCommits).toBe(1);
      expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, unended_runs: 0, ghost_commits: 0, ghost_commits_possible: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
      expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['vercel-ai', 'hono-chat']]);
      agreesWithTruth(r);
    });
  });
});
