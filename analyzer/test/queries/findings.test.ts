import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FINDING_KINDS, isFindingKind } from '../../types.js';
import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** findings.sql: one row per finding, worst first (irreversible effects, then money, then the rest), then by time; at most $limit. */
const scenario = (): Traces => {
  const t = traces();
  const g = t.run({ conversation: 'cg', startMs: 0, endMs: 900, outcome: 'cancelled' });
  g.cancelRequest(100);
  g.ack(150);
  g.tool({ name: 'send_email', callId: 'm', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
  g.commit({ callId: 'm', atMs: 300, state: 'acknowledged' }); // ghost_commit (1), orphan_tool_call (2, at 400)
  g.tool({ name: 'refund', callId: 'r', startMs: 50, endMs: 400, result: 'delivered', effect: 'irreversible' });
  g.commit({ callId: 'r', atMs: 350 });
  g.compensate({ callId: 'r', atMs: 500, outcome: 'succeeded' }); // ghost_commit, compensated (3); ended after A: orphan (2)
  g.tool({ name: 'db', callId: 'e', startMs: 50, endMs: 450, status: { code: 'error', message: 'ECONNRESET' }, errorType: 'Error' }); // cleanup_error (3), orphan (2)
  const n = t.run({ conversation: 'cg', startMs: 1000, endMs: 1900, outcome: 'failed' });
  n.model({ startMs: 1000, endMs: 1100, model: 'gpt-4o', status: { code: 'error', message: '400 No tool output found for function call m.' }, attrs: { 'error.type': '400' } }); // post_cancel_error (2)
  n.steerEnqueue('s', 1200);
  n.steerEnqueue('v', 1300);
  n.steerInject('v', 1350, 'inside_tool_batch'); // steer_dropped, steer_violation (3)
  const k = t.run({ conversation: 'ck', startMs: 0, endMs: 900 });
  k.cancelRequest(600); // unacknowledged_cancel (2, at 600)
  k.model({ startMs: 650, endMs: 800, model: 'gpt-4o', input: 100, output: 10 }); // tokens_after_stop (2)
  t.run({ startMs: 700, exported: false }).processOrphan(800); // unended_run (2, at 800), orphan_process (2, at 800)
  for (const startMs of [0, 2000]) {
    const p = t.run({ conversation: 'cp', startMs, endMs: startMs + 900 });
    p.tool({ name: 'charge', callId: `p${startMs}`, startMs: startMs + 10, endMs: startMs + 100, idempotencyKey: 'order-1' });
    p.commit({ callId: `p${startMs}`, atMs: startMs + 50 }); // replay_duplicate (1, at 2050)
  }
  return t;
};

describe('findings', () => {
  it('every kind, each with its severity and trace', async () => {
    const s = await analyzeTraces(scenario());
    const rows = await s.rows('findings', { limit: 100n });
    s.close();
    expect(rows.map((f) => `${f['kind']}:${f['severity']}`).sort()).toEqual([
      'cleanup_error:3',
      'ghost_commit:1',
      'ghost_commit:3',
      'orphan_process:2',
      'orphan_tool_call:2',
      'orphan_tool_call:2',
      'orphan_tool_call:2',
      'post_cancel_error:2',
      'replay_duplicate:1',
      'steer_dropped:3',
      'steer_violation:3',
      'tokens_after_stop:2',
      'unacknowledged_cancel:2',
      'unended_run:2',
    ]);
    const ghost = rows.find((f) => f['kind'] === 'ghost_commit' && f['severity'] === 1)!;
    expect(ghost).toMatchObject({ tool: 'send_email', conversation_id: 'cg', detail: 'send_email (irreversible) committed 200.000 ms after Stop' });
    expect(ghost['time_ns']).toBe(ns(300));
    expect(rows.find((f) => f['kind'] === 'post_cancel_error')!['detail']).toMatch(/^orphan_tool_call_rejected in the next run: 400 No tool output found/);
  });

  it('a possible ghost commit says what is known: when the request reached the service and when its answer was lost, that the tool never ended, or that its effect was out of sight', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'send_email', callId: 'a', startMs: 50, endMs: 105, effect: 'irreversible' });
    r.commit({ callId: 'a', atMs: 100.97, evidence: 'request_sent', unansweredMs: 88.5 });
    r.tool({ name: 'book', callId: 'b', startMs: 40, effect: 'reversible' });
    r.tool({ name: 'notify', callId: 'c', startMs: 60, endMs: 110 });
    r.commit({ callId: 'c', atMs: 105, evidence: 'request_sent' });
    r.tool({ name: 'mcp_send', callId: 'd', startMs: 70, endMs: 112, effect: 'irreversible', result: 'cancelled', attrs: { 'afterstop.tool.out_of_sight': 'mcp' } });
    const s = await analyzeTraces(t);
    const rows = (await s.rows('findings', { limit: 100n })).filter((f) => f['kind'] === 'possible_ghost_commit');
    s.close();
    expect(rows.map((f) => [f['severity'], f['detail']])).toEqual([
      [1, 'send_email (irreversible) may have committed after Stop: its request reached the service 87.530 ms before Stop, and its answer was lost 0.970 ms after Stop'],
      [1, 'notify (effect unknown) may have committed after Stop: its request reached the service, and its answer was lost 5.000 ms after Stop'],
      [
        1,
        "mcp_send (irreversible) may have committed after Stop: it was in flight at Stop and its effect happened out of afterstop's sight (another process, e.g. an MCP server), so whether it landed is not known; it ended 12.000 ms after Stop",
      ],
      [3, 'book (reversible) may have committed after Stop: it started 60.000 ms before Stop and never ended (the process died or hung), so its effect is not known'],
    ]);
  });

  it('worst first: irreversible effects, then money, then the rest by time', async () => {
    const s = await analyzeTraces(scenario());
    const rows = await s.rows('findings', { limit: 100n });
    s.close();
    expect(rows.map((f) => f['kind']).slice(0, 3)).toEqual(['ghost_commit', 'replay_duplicate', 'tokens_after_stop']);
    const sev = rows.map((f) => f['severity'] as number);
    expect(sev).toEqual([...sev].sort());
    const two = rows.filter((f) => f['severity'] === 2 && f['kind'] !== 'tokens_after_stop').map((f) => f['time_ns'] as bigint);
    expect(two).toEqual([...two].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('at most $limit rows, the worst ones', async () => {
    const s = await analyzeTraces(scenario());
    const rows = await s.rows('findings', { limit: 2n });
    s.close();
    expect(rows.map((f) => f['kind'])).toEqual(['ghost_commit', 'replay_duplicate']);
  });

  it('tokens after Stop within $limit: the first runs by C, each with its models, before the rest of severity 2', async () => {
    const t = traces();
    // Four runs with tokens billed after Stop, their C out of start order; one with two models.
    for (const [i, c] of [
      [0, 400],
      [1, 100],
      [2, 300],
      [3, 200],
    ] as const) {
      const r = t.run({ conversation: `c${i}`, startMs: i * 10, endMs: 900 });
      r.cancelRequest(c);
      r.model({ startMs: c + 10, endMs: c + 50, model: 'gpt-4o', input: 100 + i, output: 10 });
      if (i === 3) r.model({ startMs: c + 20, endMs: c + 60, model: 'gpt-4o-mini', input: 1, output: 1 });
    }
    const s = await analyzeTraces(t);
    const rows = await s.rows('findings', { limit: 2n });
    const all = await s.rows('findings', { limit: 100n });
    s.close();
    expect(rows.map((f) => [f['kind'], f['conversation_id'], f['time_ns']])).toEqual([
      ['tokens_after_stop', 'c1', ns(100)],
      ['tokens_after_stop', 'c3', ns(200)],
    ]);
    expect(rows[1]!['detail']).toBe('104 input and 11 output tokens after Stop (gpt-4o, gpt-4o-mini), $0.000358');
    // With room for all: every run's tokens, then the unacknowledged cancels (the same severity, after money).
    expect(all.filter((f) => f['kind'] === 'tokens_after_stop').map((f) => f['conversation_id'])).toEqual(['c1', 'c3', 'c2', 'c0']);
    expect(all.slice(0, 4).every((f) => f['kind'] === 'tokens_after_stop')).toBe(true);
  });

  it('only runs in the window', async () => {
    const s = await analyzeTraces(scenario(), { sinceMs: 1500 });
    const rows = await s.rows('findings', { limit: 100n });
    s.close();
    expect(rows.map((f) => f['kind'])).toEqual(['replay_duplicate']);
  });

  it('an irreversible ghost commit without a tool call id is still severity 1 (even when another call was compensated)', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(100);
    r.commit({ callId: 'x', atMs: 300, tool: 'wire_money', effect: 'irreversible', noCallId: true });
    t.run({ startMs: 0, endMs: 900 }).compensate({ callId: 'other', atMs: 10, outcome: 'succeeded' });
    const s = await analyzeTraces(t);
    const rows = await s.rows('findings', { limit: 10n });
    s.close();
    expect(rows.map((f) => [f['kind'], f['severity']])).toEqual([['ghost_commit', 1]]);
  });
});

describe('finding kinds', () => {
  it('findings.sql gives exactly the kinds of types.ts (FindingKind), and the report refuses one it does not know', async () => {
    const sql = fs.readFileSync(fileURLToPath(new URL('../../queries/model/findings.sql', import.meta.url)), 'utf8');
    // A branch's kind is its first column: a literal, or a CASE of literals.
    const firstColumns = [...sql.matchAll(/\bSELECT\s+((?:CASE\b[\s\S]*?\bEND)|'[a-z_]+')/g)].map((m) => m[1] ?? '');
    const named = new Set(firstColumns.flatMap((c) => [...c.matchAll(/(?:^|THEN |ELSE )'([a-z_]+)'/g)].map((m) => m[1])));
    expect([...named].sort()).toEqual([...FINDING_KINDS].sort());
    expect(isFindingKind('ghost_commit')).toBe(true);
    expect(isFindingKind('ghost')).toBe(false);
  });
});
