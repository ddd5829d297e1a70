import { describe, expect, it } from 'vitest';
import { figureLines, pickRows, signedMs, timelineRows, timeRange } from '../../render/timeline-rows.js';
import type { RunFigures, RunTimeline, TimelineItem } from '../../types.js';

/** The rows every format draws from a run's timeline: labelled once, in time order, picked when there are too many. */
const figures: RunFigures = {
  cancel_ack_ms: null,
  cancel_settle_ms: null,
  cancel_depth: null,
  cancel_depth_reason: null,
  ghost_commits: { known: 0, possible: 0, inferred: 0, compensated: 0 },
  orphan_tool_calls: { orphans: 0, repaired: 0, late_results: 0, requested_never_run: 0, never_ended: 0, result_lost: 0 },
  tokens_after_stop: { input: 0, output: 0, observed_calls: 0, estimated_calls: 0, calls_without_usage: 0, calls_started_after_stop: 0, ghost_tax_usd: 0, unpriced_calls: 0, unpriced_tokens: { input: 0, output: 0 } },
  post_cancel_error: null,
};
const run = (items: TimelineItem[], o: Partial<RunTimeline> = {}): RunTimeline => ({
  run_id: 'r',
  trace_id: 't',
  service: null,
  agent: null,
  framework: null,
  conversation_id: null,
  origin: '2026-01-01T00:00:00.000Z',
  origin_ns: '0',
  cancelled: true,
  cancel_inferred: false,
  outcome: 'cancelled',
  start_ms: -100,
  end_ms: 500,
  ack_ms: null,
  settle_ms: null,
  uninstrumented: [],
  items,
  figures,
  next_run: null,
  ...o,
});
const model = (start: number, end: number, span = `m${start}`): TimelineItem => ({
  kind: 'model_call',
  span_id: span,
  start_ms: start,
  end_ms: end,
  name: 'chat gpt-4o',
  model: 'gpt-4o',
  status: 'unset',
  cancelled: false,
  started_after_stop: start >= 0,
  after_stop: null,
});
const tool = (start: number, end: number | null): TimelineItem => ({
  kind: 'tool_call',
  span_id: `t${start}`,
  start_ms: start,
  end_ms: end,
  tool: 'send_email',
  call_id: 'c',
  effect: 'irreversible',
  tool_kind: null,
  result: null,
  status: 'unset',
  outcome: null,
  late: false,
  ghost: end === null ? 'possible' : null,
  recorded: true,
  mcp: null,
});
const stop: TimelineItem = { kind: 'marker', span_id: 's', start_ms: 0, name: 'afterstop.cancel.request' };
const ghost = (at: number): TimelineItem => ({
  kind: 'commit',
  span_id: `g${at}`,
  start_ms: at,
  tool: 'send_email',
  call_id: 'c',
  effect: 'irreversible',
  evidence: 'response',
  ghost: 'known',
  compensated: false,
  sent_ms: null,
  witness: null,
  witness_verdict: null,
  earliest_ms: at,
  latest_ms: at,
  clock_bound_ms: null,
});

describe('timelineRows', () => {
  it('labels what went on after Stop: a call started after it, a ghost commit, a tool that never ended; the Stop is a line', () => {
    const rows = timelineRows(run([model(-90, -10), stop, model(20, 80), tool(-50, null), ghost(300)]));
    expect(rows.map((r) => [signedMs(r.start_ms), r.label, r.note, r.alarm, r.line])).toEqual([
      ['-90 ms', 'gpt-4o', '', false, null],
      ['-50 ms', 'send_email (irreversible)', 'never ended, ← possible ghost: in flight at Stop, outcome not seen', true, null],
      ['+0 ms', 'Stop', '', false, 'stop'],
      ['+20 ms', 'gpt-4o', 'started after Stop', true, null],
      ['+300 ms', 'send_email COMMIT (irreversible, response)', '← ghost', true, null],
    ]);
  });

  it('a next run’s calls are not “after Stop”: its offsets count from another run’s Stop; an inferred Stop gets a row of its own', () => {
    const next = run([model(4000, 4100)], { start_ms: 4000, end_ms: 4200 });
    expect(timelineRows(next, true).map((r) => [r.note, r.alarm, r.line])).toEqual([['', false, null]]);
    expect(timelineRows(run([model(-90, 10)], { cancel_inferred: true })).map((r) => [r.label, r.inferred, r.line])).toEqual([
      ['gpt-4o', false, null],
      ['Stop (inferred: the first span to end with an abort or cancel)', true, 'stop'],
    ]);
  });
});

describe('pickRows', () => {
  it('too many rows: the first Stop, then what the report flags, then those nearest the Stop; in time order', () => {
    const items: TimelineItem[] = [stop];
    for (let i = 0; i < 400; i++) items.push(model(-1000 + i, -999 + i));
    items.push(ghost(5000));
    const { shown, left } = pickRows(timelineRows(run(items, { start_ms: -1000, end_ms: 6000 })), 150);
    expect(shown).toHaveLength(150);
    expect(left).toBe(252);
    expect(shown.some((r) => r.line === 'stop')).toBe(true);
    expect(shown.at(-1)!.label).toMatch(/COMMIT/);
    // The calls kept are the ones nearest the Stop.
    expect(Math.min(...shown.filter((r) => r.item?.kind === 'model_call').map((r) => r.start_ms))).toBe(-1000 + 400 - 148);
    expect(shown.map((r) => r.start_ms)).toEqual([...shown.map((r) => r.start_ms)].sort((a, b) => a - b));
  });
});

describe('timeRange', () => {
  it('holds the run, its items and the Stop; a run of 300,000 items does not overflow the call stack', () => {
    expect(timeRange(run([model(-90, -10), ghost(300)]))).toEqual({ from: -100, to: 500 });
    expect(timeRange(run([], { start_ms: 10, end_ms: 10, cancelled: false }))).toEqual({ from: 10, to: 11 });
    const many = Array.from({ length: 300_000 }, (_, i) => model(i, i + 1));
    expect(timeRange(run(many, { start_ms: 0, end_ms: null }))).toEqual({ from: 0, to: 300_000 * 1.05 });
  });
});

describe('figureLines', () => {
  it('a run’s ghost tax says its unpriced calls and tokens beside the dollars, never the dollars alone', () => {
    const tokens = { ...figures.tokens_after_stop, input: 1300, output: 200, observed_calls: 3, ghost_tax_usd: 0.0022 };
    const line = (k: typeof tokens) => Object.fromEntries(figureLines(run([], { figures: { ...figures, tokens_after_stop: k } })))['tokens after Stop'];
    expect(line({ ...tokens, unpriced_calls: 2, unpriced_tokens: { input: 1200, output: 100 } })).toContain('; $0.0022 + 2 unpriced calls (1,300 tokens: 1,200 input, 100 output);');
    expect(line(tokens)).toContain('; $0.0022; ');
  });
});
