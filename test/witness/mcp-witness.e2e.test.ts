import { describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { agreesWithTruth, sdkApps, truthAfterStop, type AppRun } from '../helpers/sdk-app.js';

/**
 * Issue 49: the MCP server of issue 48 (scorecard/apps/mcp-mail-server.mjs under `--import afterstop/register`) as
 * the far side's witness, its clock shifted by libfaketime (SERVER_FAKETIME, scorecard/apps/mcp-app-kit.mjs). The
 * app is the hand-written loop (openai + the MCP SDK's Client.callTool with a signal, over stdio), stopped 100 ms
 * after the server's send_email started. The server's commit markers are on the server's clock: the report maps
 * them through the bound of the two clocks (the tools/call pairs), and decides nothing the bound does not allow.
 */
const { app, runApp } = sdkApps();

const SHIFTS = [
  ['+5s', 5000],
  ['-5s', -5000],
] as const;

/** How far the server's clock is off the app's, as their spans show it: a server span's start minus its client span's. */
async function serverOffsetMs(r: AppRun): Promise<number> {
  const { spans } = await readTraces(r.traces);
  const server = spans.find((s) => s.attributes['afterstop.mcp.side'] === 'server' && s.name.startsWith('execute_tool send_email'));
  expect(server, 'the server’s send_email span').toBeDefined();
  const client = spans.find((s) => s.spanId === server!.parentSpanId);
  expect(client, 'its client span (the traceparent in _meta)').toBeDefined();
  return Number((server!.startNs - client!.startNs) / 1_000_000n);
}

describe.each(SHIFTS)('the MCP server’s clock %s off the app’s', (shift, shiftMs) => {
  const run = (env: Record<string, string>): Promise<AppRun> => runApp(app('mcp-sdk-loop-app.mjs'), 'stdio', { SERVER_REGISTER: '1', SERVER_FAKETIME: shift, ...env });

  it('the server composes the mail past Stop, then sends it: a known ghost, on the server’s clock mapped to the app’s', async () => {
    const r = await run({ PREPARE_MS: '300' });
    // The shift is real: the server's span starts the shift (and a few ms of transport) after its client span.
    const offset = await serverOffsetMs(r);
    expect(offset).toBeGreaterThanOrEqual(shiftMs - 5);
    expect(offset).toBeLessThan(shiftMs + 500);
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(r.report.totals).toMatchObject({ ghost_commits: 1, ghost_commits_possible: 0 });
    expect(r.report.findings.map((f) => f.kind as string)).not.toContain('commit_inside_clock_bound');
    agreesWithTruth(r);
  });

  it('the server’s POST in flight at Stop (sent before, answered after): known or possible, never none, never a ghost that did not happen', async () => {
    const r = await run({});
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(r.report.totals.ghost_commits + r.report.totals.ghost_commits_possible).toBe(1);
    agreesWithTruth(r);
  });
});
