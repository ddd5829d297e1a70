import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../analyze.js';
import { InputError } from '../errors.js';
import { explain, parseExplainTarget } from '../explain.js';
import { renderExplainTerminal } from '../render/explain-terminal.js';
import { expectTimelineMatchesSpans, writtenSpans } from '../../test/helpers/timeline-check.js';
import { traces, writeLines } from '../../test/helpers/trace-builder.js';
import { PYTHON_FRAMEWORKS, pythonTurns } from '../../test/helpers/python-frameworks.js';

/**
 * explain.ts over the golden traces and the recorded Vercel AI SDK traces: the
 * runs a finding, a run id or a trace id names, drawn from the store; each
 * item a span of the run at its own times; the figures of METRICS.md for the run.
 */
const golden = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const aiSdk = fileURLToPath(new URL('../../test/fixtures/ai-sdk/', import.meta.url));
const goldenFiles = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => golden + f);
const spans = writtenSpans([golden, aiSdk]);

/**
 * A store per set of inputs, read by its first explain or analyze: the next ones read nothing new (explain, like
 * leak-report, ingests only what its store has not seen), so a test draws every finding without reading the
 * traces again for each.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-explain-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const stores = new Map<string, string>();
const storeOf = (inputs: string[]): string => {
  const key = inputs.join('\n');
  if (!stores.has(key)) stores.set(key, path.join(root, `store-${stores.size}`));
  return stores.get(key)!;
};
const goldenStore = storeOf(goldenFiles);

const over = (target: string, inputs: string[] = goldenFiles) => explain({ target: parseExplainTarget(target), inputs, db: storeOf(inputs) });

describe('parseExplainTarget', () => {
  it('a number (or #number) is a finding; anything else an id', () => {
    expect(parseExplainTarget('3')).toEqual({ finding: 3 });
    expect(parseExplainTarget(' #12 ')).toEqual({ finding: 12 });
    expect(parseExplainTarget('0000000000000007')).toEqual({ id: '0000000000000007' });
    expect(parseExplainTarget('4bf92f3577b34da6a3ce929d0e0e4736')).toEqual({ id: '4bf92f3577b34da6a3ce929d0e0e4736' });
    expect(() => parseExplainTarget('0')).toThrow(/numbered from 1/);
    expect(() => parseExplainTarget('  ')).toThrow(InputError);
  });
});

describe('explain', () => {
  it('finding 1 of the golden report: the ghost email, drawn against its Stop, with the next run that failed beside it', async () => {
    const report = await analyze({ inputs: goldenFiles, db: goldenStore });
    const e = await over('1');
    expect(e.finding).toEqual(report.findings[0]);
    expect(e.timelines).toHaveLength(1);
    const t = e.timelines[0]!;
    expect(t).toMatchObject({ run_id: report.findings[0]!.run_id, trace_id: report.findings[0]!.trace_id, cancelled: true, cancel_inferred: false, ack_ms: 50 });
    expect(t.items.map((i) => [i.kind, i.start_ms])).toEqual([
      ['model_call', -600],
      ['tool_call', -100],
      ['marker', 0],
      ['marker', 50],
      ['commit', 300],
    ]);
    expect(t.items.find((i) => i.kind === 'commit')).toMatchObject({ tool: 'send_email', effect: 'irreversible', ghost: 'known' });
    expect(t.items.find((i) => i.kind === 'tool_call')).toMatchObject({ tool: 'send_email', outcome: 'lost', end_ms: 350, late: true });
    expect(t.figures).toMatchObject({
      cancel_depth: 3,
      cancel_ack_ms: 50,
      ghost_commits: { known: 1, possible: 0, inferred: 0 },
      orphan_tool_calls: { orphans: 1, result_lost: 1 },
      post_cancel_error: { cause: 'orphan_tool_call_rejected' },
    });
    expect(t.figures.cancel_depth_reason).toMatch(/1 ghost commit/);
    expect(t.next_run).toMatchObject({ run_id: t.figures.post_cancel_error!.run_id, cancelled: false, outcome: 'failed' });
    expect(t.next_run!.items.map((i) => [i.kind, i.kind === 'model_call' ? i.status : ''])).toEqual([['model_call', 'error']]);
    expect(expectTimelineMatchesSpans(t, spans)).toBe(6);
  });

  it('a post-cancel error finding draws the cancelled run, its failed next run beside it; the finding numbers follow the report', async () => {
    const report = await analyze({ inputs: goldenFiles, db: goldenStore });
    const n = report.findings.findIndex((f) => f.kind === 'post_cancel_error') + 1;
    const e = await over(String(n));
    expect(e.finding?.kind).toBe('post_cancel_error');
    expect(e.timelines[0]!.next_run?.run_id).toBe(e.finding!.run_id);
    expect(e.timelines[0]!.cancelled).toBe(true);
    for (const [i, f] of report.findings.entries()) {
      const each = await over(String(i + 1));
      expect(each.finding).toEqual(f);
      for (const t of each.timelines) expectTimelineMatchesSpans(t, spans);
    }
    // Over a fresh read of the same traces (explain --db :memory:), the finding has its number and is drawn the same.
    expect(await explain({ target: { finding: n }, inputs: goldenFiles, db: ':memory:' })).toEqual(e);
  });

  it('the tokens billed after Stop, and how they are known; a loop that went on is depth 0 with the calls it started', async () => {
    const report = await analyze({ inputs: goldenFiles, db: goldenStore });
    const runOf = (kind: string, pick = 0) => report.findings.filter((f) => f.kind === kind)[pick]!;
    const stream = (await over(runOf('tokens_after_stop', 0).run_id)).timelines[0]!;
    expect(stream.items.find((i) => i.kind === 'model_call')).toMatchObject({ after_stop: { output: 30, how: 'estimated' } });
    expect(stream.figures.tokens_after_stop).toMatchObject({ output: 30, estimated_calls: 1 });
    const loop = (await over(runOf('tokens_after_stop', 1).run_id)).timelines[0]!;
    expect(loop.figures.cancel_depth).toBe(0);
    expect(loop.figures.cancel_depth_reason).toMatch(/the loop went on: \d+ model or tool call/);
    expect(loop.items.some((i) => i.kind === 'model_call' && i.started_after_stop)).toBe(true);
    expect(loop.figures.cancel_ack_ms).toBeNull();
  });

  it('a trace id draws each of its runs; a key (trace:run) the one', async () => {
    const report = await analyze({ inputs: goldenFiles, db: goldenStore });
    const replay = report.findings.find((f) => f.kind === 'replay_duplicate')!;
    const byTrace = await over(replay.trace_id.toUpperCase());
    expect(byTrace.finding).toBeNull();
    expect(byTrace.timelines.map((t) => t.trace_id)).toEqual(byTrace.timelines.map(() => replay.trace_id));
    expect(byTrace.timelines.length).toBeGreaterThanOrEqual(1);
    const byKey = await over(`${replay.trace_id}:${replay.run_id}`);
    expect(byKey.timelines.map((t) => t.run_id)).toEqual([replay.run_id]);
    expect(byKey.timelines[0]!.items.filter((i) => i.kind === 'commit').map((i) => i.kind === 'commit' && i.tool)).toContain('charge_card');
  });

  it('an id or a finding the store does not hold is an InputError naming it', async () => {
    await expect(over('nosuchrun')).rejects.toThrow(/"nosuchrun": no run or trace of that id/);
    await expect(over('nosuchrun')).rejects.toSatisfy(InputError.isInstance);
    await expect(over('999')).rejects.toThrow(/finding 999: the report has only \d+ finding\(s\)/);
    await expect(explain({ target: { finding: 1 }, inputs: [], db: ':memory:' })).rejects.toThrow(/no findings/);
  });

  it('a foreign run (the Vercel AI SDK’s own spans): the Stop inferred, its tools not recorded by afterstop, each item a span', async () => {
    let drawn = 0;
    for (const file of fs.readdirSync(aiSdk).filter((f) => f.endsWith('.jsonl'))) {
      const traceIds = new Set([...writtenSpans([aiSdk + file]).values()].map((x) => x.traceId));
      for (const traceId of traceIds) {
        const e = await over(traceId, [aiSdk + file]);
        for (const t of e.timelines.filter((x) => x.cancelled)) {
          expect(t.cancel_inferred, file).toBe(true);
          for (const i of t.items) if (i.kind === 'tool_call') expect(i.recorded, file).toBe(false);
          expect(t.items.some((i) => i.kind === 'marker')).toBe(false);
          expectTimelineMatchesSpans(t, spans);
          drawn++;
        }
      }
    }
    expect(drawn).toBeGreaterThanOrEqual(5);
  });

  it('a run is drawn whole, its figures over no window, whatever window numbers the findings', async () => {
    const run = '0000000000000007';
    const before = await explain({ target: { id: run }, inputs: goldenFiles, db: ':memory:', until: new Date('2000-01-01') });
    expect(before.timelines[0]!.figures).toMatchObject({ cancel_ack_ms: 50, cancel_settle_ms: 350, cancel_depth: 3 });
    // The post-cancel error's next run lies after --since; the cancelled run it follows, before it.
    const since = new Date('2026-09-21T14:13:22Z');
    const report = await analyze({ inputs: goldenFiles, db: ':memory:', since, timelines: 20 });
    const n = report.findings.findIndex((f) => f.kind === 'post_cancel_error');
    expect(n).toBeGreaterThanOrEqual(0);
    const drawn = report.timelines!.find((t) => t.next_run?.run_id === report.findings[n]!.run_id)!;
    expect(drawn.figures).toMatchObject({ cancel_ack_ms: 50, cancel_depth: 3, ghost_commits: { known: 1 } });
    const e = await explain({ target: { finding: n + 1 }, inputs: goldenFiles, db: ':memory:', since });
    expect(e.timelines[0]!.figures.cancel_ack_ms).toBe(50);
  });

  it('a cancelled run that is also the failed next run of an earlier Stop is drawn as itself; its post-cancel error as the earlier run’s', async () => {
    const t = traces();
    const a = t.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'cancelled' });
    a.cancelRequest(100);
    a.ack(120);
    a.tool({ name: 'send_email', callId: 'm', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
    const b = t.run({ conversation: 'c', startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    b.model({ startMs: 1000, endMs: 1100, model: 'gpt-4o', status: { code: 'error', message: '400 No tool output found for function call m.' } });
    b.tool({ name: 'lookup', callId: 'l', startMs: 1200, endMs: 1800, effect: 'read', result: 'dropped' });
    b.cancelRequest(1300);
    const file = t.write();
    const own = await explain({ target: { id: b.spanId }, inputs: [file], db: ':memory:' });
    expect(own.timelines.map((x) => x.run_id)).toEqual([b.spanId]);
    expect(own.timelines[0]!.figures.orphan_tool_calls.orphans).toBe(1);
    expect(own.timelines[0]!.items.find((i) => i.kind === 'marker')?.start_ms).toBe(0);
    const report = await analyze({ inputs: [file], db: ':memory:' });
    const n = report.findings.findIndex((f) => f.kind === 'post_cancel_error') + 1;
    const post = await explain({ target: { finding: n }, inputs: [file], db: ':memory:' });
    expect(post.timelines.map((x) => [x.run_id, x.next_run?.run_id])).toEqual([[a.spanId, b.spanId]]);
    // The next run's figures are its own: it was cancelled too.
    expect(post.timelines[0]!.next_run!.figures.orphan_tool_calls.orphans).toBe(1);
    expect(post.timelines[0]!.next_run!.figures.cancel_ack_ms).toBeNull();
  });

  it("an MCP call drawn with its server's side (issue 48): the server's lane and commit, and what held the depth when the Stop did not cross", async () => {
    const t = traces();
    const mcp = (via: string) => ({ 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': '7', 'afterstop.mcp.side': 'client', 'afterstop.mcp.server': 'mail-server', 'afterstop.mcp.cancel.via': via });
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(120);
    const call = r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 105, result: 'cancelled', effect: 'irreversible', attrs: mcp('notification') });
    const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 1500, handler: 'finished_after_cancel', commitCount: 1 });
    server.cancelReceived(110);
    server.commit(300);
    const untold = t.run({ startMs: 2000, endMs: 2900, outcome: 'cancelled' });
    untold.cancelRequest(2100);
    untold.ack(2120);
    untold.tool({ name: 'search', callId: 'n1', startMs: 2050, endMs: 2105, effect: 'read', result: 'cancelled', attrs: mcp('none') });
    const file = t.write('mcp-explain.jsonl');
    const [joined] = (await explain({ target: { id: r.spanId }, inputs: [file], db: ':memory:' })).timelines;
    const tools = joined!.items.filter((i) => i.kind === 'tool_call');
    expect(tools.map((i) => [i.start_ms, i.end_ms, i.mcp?.side, i.mcp?.handler ?? null])).toEqual([
      [-50, 5, 'client', null],
      [-40, 1400, 'server', 'finished_after_cancel'],
    ]);
    expect(joined!.items.find((i) => i.kind === 'commit')).toMatchObject({ start_ms: 200, call_id: 'c1', ghost: 'known' });
    expect(joined!.figures.cancel_depth).toBe(2);
    expect(joined!.figures.cancel_depth_reason).toBe("send_email was running at Stop and its MCP server's handler ended 1,400 ms after it (budget 1,000 ms)");
    const text = renderExplainTerminal({ finding: null, timelines: [joined!], runs_not_drawn: 0, skipped: [] }, { color: false, width: 160 });
    expect(text).toContain('send_email on MCP server mail-server (effect unknown)');
    expect(text).toContain('send_email via MCP (mail-server) (irreversible)');
    expect(text).toContain('handler finished after the cancel');
    expect(text).toContain('the MCP server received the cancel');
    const [stopped] = (await explain({ target: { id: untold.spanId }, inputs: [file], db: ':memory:' })).timelines;
    expect(stopped!.figures.cancel_depth).toBe(3);
    expect(stopped!.figures.cancel_depth_reason).toBe(
      'the Stop did not cross to the MCP server mail-server of 1 tool call(s) in flight (no notifications/cancelled sent, the request stream left open): the server was left to run',
    );
  });

  it('an id that matches more runs than are drawn says how many more', async () => {
    const t = traces();
    const first = t.run({ startMs: 0, endMs: 10 });
    for (let i = 1; i < 60; i++) t.run({ traceId: first.traceId, startMs: i * 20, endMs: i * 20 + 10 });
    const e = await explain({ target: { id: first.traceId }, inputs: [t.write()], db: ':memory:' });
    expect(e.timelines).toHaveLength(50);
    expect(e.runs_not_drawn).toBe(10);
  });

  it('Python frameworks’ own spans (PydanticAI; CrewAI and the OpenAI Agents SDK through OpenInference): drawn the same way, a Stop only where the trace shows one, inferred', async () => {
    const seen: Record<string, [boolean, boolean]> = {};
    for (const framework of PYTHON_FRAMEWORKS) {
      const file = writeLines(pythonTurns(framework), `${framework}.jsonl`);
      const written = writtenSpans([file]);
      for (const traceId of new Set([...written.values()].map((x) => x.traceId))) {
        const e = await over(traceId, [file]);
        for (const t of e.timelines) {
          expectTimelineMatchesSpans(t, written);
          if (t.cancelled) expect(t.cancel_inferred).toBe(true);
          const [cancelled, any] = seen[framework] ?? [false, false];
          seen[framework] = [cancelled || t.cancelled, any || t.items.length > 0];
        }
      }
    }
    // PydanticAI's CancelledError is a Stop (inferred); CrewAI and the OpenAI Agents SDK show none, and none is invented.
    expect(seen).toEqual({ 'pydantic-ai': [true, true], crewai: [false, true], autogen: [false, true], 'openai-agents-python': [false, true] });
  });
});
