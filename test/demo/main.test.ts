import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { EffectRecord, LedgerSnapshot, ModelRequestRecord } from '@afterstop/analyzer/simulator';
import { compareWithLedger, type Comparison } from '../../demo/agreement.js';
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

  it('says line by line whether afterstop and the ledger agree, each figure the one both sides recorded', () => {
    const text = lines.join('\n');
    expect(result.comparisons.filter((c) => c.verdict === 'DISAGREE')).toEqual([]);
    expect(text).toMatch(/Do they agree\?/);
    expect(text).toMatch(/\d+ facts compared: \d+ agree, \d+ differs? for the reasons given, none disagree/);
    const ms = (ns: bigint): number => Math.round(Number(ns) / 1e6);
    const { ledger, spans } = result;
    // The ghost e-mail: the printed figures are afterstop's and the ledger's own.
    const stop = spans.find((s) => s.name === 'afterstop.cancel.request' && s.attributes['afterstop.run.id'] === result.turns[1]!.runId)!;
    const mark = spans.find((s) => s.name === 'afterstop.tool.commit')!;
    const email = ledger.effects.find((e) => e.name === 'send_email')!;
    const commit = /agree: send_email committed after Stop \(afterstop (\d+) ms, ledger (\d+) ms: the two clocks read the same commit (\d+) ms apart/.exec(text);
    expect(commit, text).not.toBeNull();
    expect(commit!.slice(1).map(Number)).toEqual([ms(mark.startNs - stop.startNs), ms(email.committedNs! - stop.startNs), ms(mark.startNs - email.committedNs!)]);
    // The calls answered in full: afterstop's usage is the ledger's bill.
    const answered = ledger.modelRequests.filter((r) => r.status === 200 && !r.clientClosedEarly);
    const sum = (f: (r: ModelRequestRecord) => number): number => answered.reduce((n, r) => n + f(r), 0);
    expect(text).toContain(
      `agree: tokens of the ${answered.length} calls answered in full: afterstop ${sum((r) => r.inputTokens)} in / ${sum((r) => r.outputTokensGenerated)} out (the provider's usage), ledger ${sum((r) => r.inputTokens)} in / ${sum((r) => r.outputTokensGenerated)} out billed`,
    );
    expect(text).toContain(`agree: model requests: afterstop ${ledger.modelRequests.length} model calls, ledger ${ledger.modelRequests.length} requests`);
    expect(text).toMatch(/agree: a request refused: afterstop error 400, ledger status 400 \(An assistant message with 'tool_calls'.*\), 0 tokens billed/);
    expect(text).toContain('agree: history repaired: afterstop answered call_1 with a synthetic result, ledger: the next request carried results for call_1');
    // The stopped stream: what reached the client is at most what was sent, and the bill is explained token by token.
    const stream = ledger.modelRequests.find((r) => r.clientClosedEarly)!;
    const aborted = spans.find((s) => s.attributes['afterstop.model.aborted'] === true)!;
    const streamed = aborted.attributes['afterstop.model.output_tokens_streamed'] as number;
    expect(text).toMatch(new RegExp(`(agree|expected difference): the stopped stream's tokens that reached the client: afterstop ${streamed}, ledger ${stream.outputTokensSent} sent`));
    expect(text).toMatch(new RegExp(`(agree|expected difference): the stopped stream's output tokens: ledger ${stream.outputTokensGenerated} generated \\(billed\\); afterstop ${streamed} `));
    if (stream.outputTokensGenerated > streamed) expect(text).toMatch(new RegExp(`why: ${stream.outputTokensGenerated} billed = ${streamed} reached the client`));
    // The figure the explanation says the report uses is the report's.
    expect(result.report.totals.tokens_after_stop.output).toBe(aborted.attributes['afterstop.model.output_tokens_after_cancel']);
  });

  describe('a ledger that parts from afterstop is said as a disagreement', () => {
    const verdicts = (ledger: LedgerSnapshot): Comparison[] => compareWithLedger(result.spans, ledger).filter((c) => c.verdict === 'DISAGREE');
    const withRequests = (f: (r: ModelRequestRecord, i: number) => ModelRequestRecord): LedgerSnapshot => ({ ...result.ledger, modelRequests: result.ledger.modelRequests.map(f) });
    const withEffects = (effects: EffectRecord[]): LedgerSnapshot => ({ ...result.ledger, effects });

    it('the real ledger: none', () => {
      expect(verdicts(result.ledger)).toEqual([]);
    });

    it('a commit the ledger saw after afterstop says it did, or none, or one afterstop did not see', () => {
      const mark = result.spans.find((s) => s.name === 'afterstop.tool.commit')!;
      const late = result.ledger.effects.map((e) => ({ ...e, committedNs: mark.startNs + 5_000_000n }));
      expect(verdicts(withEffects(late)).map((c) => c.text)).toEqual([expect.stringMatching(/^send_email committed after Stop .*afterstop's mark -5 ms from the ledger's commit/)]);
      expect(verdicts(withEffects([])).map((c) => c.text)).toEqual(['afterstop recorded a commit of send_email the ledger has not']);
      const other = { ...result.ledger.effects[0]!, name: 'refund', idempotencyKey: 'k' };
      expect(verdicts(withEffects([...result.ledger.effects, other])).map((c) => c.text)).toEqual(['refund committed (ledger), afterstop recorded no commit']);
    });

    it('a bill that is not the usage afterstop recorded, a request afterstop did not see', () => {
      const billed = withRequests((r) => (r.status === 200 && !r.clientClosedEarly ? { ...r, outputTokensGenerated: r.outputTokensGenerated + 1 } : r));
      expect(verdicts(billed).map((c) => c.text)).toEqual([expect.stringMatching(/^tokens of the 3 calls answered in full: .*call by call they differ/)]);
      const extra = { ...result.ledger, modelRequests: [...result.ledger.modelRequests, { ...result.ledger.modelRequests[0]!, startNs: 2n ** 62n }] };
      expect(verdicts(extra).map((c) => c.text)).toEqual([expect.stringMatching(/^model requests: afterstop 5 model calls, ledger 6 requests/)]);
    });

    it('a stopped stream that sent fewer tokens than afterstop counted, or billed more than one unsent', () => {
      const fewer = withRequests((r) => (r.clientClosedEarly ? { ...r, outputTokensSent: 3, outputTokensSentNs: r.outputTokensSentNs.slice(0, 3), outputTokensGenerated: 4 } : r));
      expect(verdicts(fewer).map((c) => c.text)).toContainEqual(expect.stringMatching(/^the stopped stream: afterstop counted \d+ tokens, more than the 3 the ledger sent/));
      const unsent = withRequests((r) => (r.clientClosedEarly ? { ...r, outputTokensGenerated: r.outputTokensSent + 3 } : r));
      expect(verdicts(unsent).map((c) => c.text)).toEqual([expect.stringMatching(/: 3 tokens unaccounted for/)]);
    });

    it('a repair whose synthetic result never reached the provider', () => {
      const dropped = withRequests((r) => (r.toolResultIds?.includes('call_1') ? { ...r, toolResultIds: [] } : r));
      expect(verdicts(dropped).map((c) => c.text)).toEqual([expect.stringMatching(/^history repaired: afterstop answered call_1 .*carried results for none/)]);
    });
  });
});
