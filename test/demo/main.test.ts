import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runDemo, type DemoResult } from '../../demo/main.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-demo-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the demo agent (npm start)', () => {
  let result: DemoResult;
  const lines: string[] = [];

  it('runs five turns: two stopped, one failed on the unanswered tool call, one repaired', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      result = await runDemo(dir);
    } finally {
      log.mockRestore();
    }
    expect(result.turns.map((t) => t.outcome)).toEqual(['completed', 'cancelled', 'failed', 'completed', 'cancelled']);
    expect(result.turns[2]!.error).toMatch(/tool_call_ids did not have response messages: call_1/);
  });

  it('records the ghost e-mail: committed after Stop, while the run had acknowledged', () => {
    const byName = (name: string) => result.spans.filter((s) => s.name === name);
    const commit = byName('afterstop.tool.commit');
    expect(commit).toHaveLength(1);
    expect(commit[0]!.attributes['afterstop.cancel.state']).toBe('acknowledged');
    const stopped = result.turns[1]!.runId;
    const request = byName('afterstop.cancel.request').find((s) => s.attributes['afterstop.run.id'] === stopped)!;
    expect(commit[0]!.startNs).toBeGreaterThan(request.startNs);
    const tool = byName('execute_tool send_email')[0]!;
    expect(tool.attributes['afterstop.tool.result']).toBe('late');
    expect(tool.attributes['afterstop.tool.effect']).toBe('irreversible');
  });

  it('records the stopped stream, the acknowledgements and the repair', () => {
    const aborted = result.spans.filter((s) => s.attributes['afterstop.model.aborted'] === true);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]!.attributes['afterstop.model.output_tokens_after_cancel']).toBeTypeOf('number');
    expect(result.spans.filter((s) => s.name === 'afterstop.cancel.ack')).toHaveLength(2);
    const repair = result.spans.filter((s) => s.name === 'afterstop.history.repair');
    expect(repair.map((s) => s.attributes['afterstop.repair.tool_call_ids'])).toEqual([['call_1']]);
    const failed = result.spans.filter((s) => s.attributes['afterstop.run.outcome'] === 'failed');
    expect(failed).toHaveLength(1);
  });

  it('prints what afterstop recorded beside the ledger of what really happened', () => {
    const text = lines.join('\n');
    expect(text).toMatch(/ghost commit: send_email committed \d+ ms after Stop \(run state: acknowledged\)/);
    expect(text).toMatch(/send_email: committed, \d+ ms after Stop/);
    expect(text).toMatch(/model request closed early: \d+ output tokens billed/);
    expect(fs.readdirSync(dir).some((f) => f.endsWith('.jsonl'))).toBe(true);
  });

  it('ends with the leak report over its traces, and its figures agree with the ledger', () => {
    const t = result.report.totals;
    expect(t.runs).toBe(5);
    expect(t.cancelled_runs).toBe(2);
    expect(t.ghost_commits).toBe(1);
    expect(t.ghost_commits_alarming).toBe(1);
    expect(t.post_cancel_errors.orphan_tool_call_rejected).toBe(1);
    expect(t.repaired_tool_calls).toBe(1);
    expect(t.cancel_ack_ms.count).toBe(2);
    // The stopped stream: a model call in flight at Stop, its tokens after Stop observed by afterstop.
    expect(t.tokens_after_stop.observed_calls).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain('afterstop leak report');
    expect(text).toMatch(/Ghost commits\s+1 \(1 irreversible or unknown, 0 inferred\)/);
    expect(text).toMatch(/send_email\s+irreversible\s+1/);
  });
});
