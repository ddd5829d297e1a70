import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain } from '../explain.js';
import { renderExplainHtml } from '../render/explain-html.js';
import { LONG_RUN_ID, writeLongRun } from '../../bench/generate-long-run.js';
import type { Explanation } from '../types.js';

/**
 * A run of thousands of tool calls drawn whole and right (the speed at 100,000 is bench/large-inputs.ts's):
 * every call once, its outcome and its commit's ghost as the leak model says, in time order. run-timeline.sql
 * joined the outcomes with a condition DuckDB ran as a nested loop (every span against every call).
 */
const CALLS = 3_000;
let dir: string;
let e: Explanation;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-long-run-'));
  const file = path.join(dir, 'long.jsonl');
  writeLongRun(file, CALLS);
  e = await explain({ target: { id: LONG_RUN_ID }, inputs: [file], db: ':memory:' });
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe(`a run of ${CALLS.toLocaleString('en-US')} tool calls`, () => {
  it('every call drawn once, in time order, with its commit; the Stop and the ack', () => {
    expect(e.timelines).toHaveLength(1);
    const items = e.timelines[0]!.items;
    const calls = items.filter((i) => i.kind === 'tool_call');
    expect(calls).toHaveLength(CALLS);
    expect(new Set(calls.map((c) => (c.kind === 'tool_call' ? c.call_id : null))).size).toBe(CALLS);
    expect(items.filter((i) => i.kind === 'commit')).toHaveLength(CALLS);
    expect(items.filter((i) => i.kind === 'model_call')).toHaveLength(CALLS / 50);
    expect(items.filter((i) => i.kind === 'marker').map((i) => (i.kind === 'marker' ? i.name : ''))).toEqual(['afterstop.cancel.request', 'afterstop.cancel.ack']);
    const starts = items.map((i) => i.start_ms);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("each call's outcome and each commit's ghost as the leak model says: commits after Stop are ghosts, calls ending after the ack lost and late", () => {
    const t = e.timelines[0]!;
    // Origin at the Stop (calls × 5 ms): call i starts at i × 10 - calls × 5, commits 5 ms later, ends 8 ms later; the ack at +20.
    const stop = CALLS * 5;
    for (const item of t.items) {
      if (item.kind === 'commit') expect(item.ghost, `commit at ${item.start_ms}`).toBe(item.start_ms >= 0 ? 'known' : null);
      if (item.kind === 'tool_call') {
        const lost = item.end_ms !== null && item.end_ms > 20;
        expect(item.outcome, `call ${item.call_id} ending at ${item.end_ms}`).toBe(lost ? 'lost' : null);
        expect(item.late).toBe(lost);
      }
    }
    const ghosts = t.items.filter((i) => i.kind === 'commit' && i.ghost === 'known').length;
    expect(ghosts).toBe(Array.from({ length: CALLS }, (_, i) => i * 10 + 5 - stop).filter((at) => at >= 0).length);
    expect(t.figures.ghost_commits.known).toBe(ghosts);
  });

  it('the HTML page draws it (a bounded number of lanes, the calls left out counted)', () => {
    const html = renderExplainHtml(e, (title) => `<!doctype html><html><head><title>${title}</title></head><body>`);
    expect(html).toContain('What the run did after Stop');
    expect(html.length).toBeLessThan(5_000_000);
    const more = /… (\d+) more not drawn/.exec(html);
    expect(Number(more?.[1])).toBeGreaterThan(CALLS);
  });
});
