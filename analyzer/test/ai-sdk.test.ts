import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../index.js';
import { recordScenario, SCENARIOS, type GroundTruth, type Scenario } from '../../test/fixtures/ai-sdk/scenarios.js';

/**
 * Traces of the real Vercel AI SDK (ai 6, its own telemetry, no afterstop
 * markers) stopped at different moments. What the analyzer says, beside the
 * ground truth the simulator recorded — as far as the trace can show it.
 */
const dir = fileURLToPath(new URL('../../test/fixtures/ai-sdk/', import.meta.url));

/** What the trace of each scenario can honestly show, and what it cannot. */
function expectations(scenario: Scenario, truth: GroundTruth, report: LeakReport): void {
  const t = report.totals;
  const committedAfterStop = truth.effects.filter((e) => e.committed && (e.after_stop_ms ?? -1) > 0).length;
  const closedEarly = truth.model_requests.filter((r) => r.closed_early).length;
  // Every scenario: one run, cancelled, inferred (no marker), grouped under the AI SDK and its functionId.
  expect(t.runs).toBe(1);
  expect(t.cancelled_runs).toBe(1);
  expect(t.cancelled_runs_inferred).toBe(1);
  expect(report.groups.map((g) => [g.framework, g.agent])).toEqual([['vercel-ai', scenario]]);
  // The AI SDK reports no usage for an aborted call: its tokens after Stop are unknown, never a made-up figure.
  expect(t.tokens_after_stop.output).toBe(0);
  expect(t.tokens_after_stop.observed_calls + t.tokens_after_stop.estimated_calls).toBe(0);
  switch (scenario) {
    case 'stream-text-during-stream':
    case 'stream-text-before-tool':
    case 'generate-text-during-generation':
      // Truth: the model request was cut while generating; no side effect.
      expect(closedEarly).toBe(1);
      expect(truth.effects).toEqual([]);
      expect(t.tokens_after_stop.calls_without_usage).toBe(1);
      expect(t.orphan_tool_calls).toBe(0);
      expect(t.ghost_commits + t.ghost_commits_inferred).toBe(0);
      // A foreign trace, its Stop inferred: it cannot show that nothing landed after Stop (the AI SDK never exports
      // a cut step, and a lost tool span looks like no tool), so its best is depth 3, never an all-clear.
      expect(t.cancel_depth['3']).toBe(1);
      break;
    case 'stream-text-after-tool-chat':
    case 'stream-text-after-tool-responses':
      // Truth: the tool step finished (its e-mail committed before Stop); the second step's text was cut.
      expect(truth.effects.map((e) => [e.committed, (e.after_stop_ms ?? 0) < 0])).toEqual([[true, true]]);
      expect(truth.model_requests.map((r) => r.closed_early)).toEqual([false, true]);
      // The trace: a root that ended with finish reason "other" and no usage, the cut step never exported.
      // The cancel is inferred from the root; the cut step is a call whose tokens are unknown, not zero.
      expect(t.tokens_after_stop.calls_without_usage).toBe(1);
      expect(t.orphan_tool_calls).toBe(0);
      expect(t.ghost_commits + t.ghost_commits_inferred + t.ghost_commits_possible).toBe(0);
      // The cut step was never exported: whether it started a tool cannot be seen (depth 3, see above).
      expect(t.cancel_depth['3']).toBe(1);
      break;
    case 'stream-text-during-tool':
    case 'generate-text-during-tool':
      // Truth: the e-mail was sent after Stop, though the tool passed the signal to fetch.
      expect(committedAfterStop).toBe(1);
      expect(truth.effects[0]!.client_gone).toBe(true);
      // The trace shows the tool call ended by the abort, its result lost: an orphan.
      expect(t.orphan_tool_calls).toBe(1);
      expect(report.findings.map((f) => f.kind)).toContain('orphan_tool_call');
      // It cannot show the commit (no marker, the tool span ended in ERROR): no ghost is claimed,
      // and the run is not given depth 4 either, since its effect is unknown.
      expect(t.ghost_commits + t.ghost_commits_inferred).toBe(0);
      expect(t.cancel_depth['4']).toBe(0);
      expect(t.cancel_depth['3']).toBe(1);
      break;
  }
}

describe('real AI SDK traces (recorded fixtures)', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario}: the report agrees with the ground truth as far as the trace can show`, async () => {
      const truth = JSON.parse(fs.readFileSync(`${dir}${scenario}.truth.json`, 'utf8')) as GroundTruth;
      const report = await analyze({ inputs: [`${dir}${scenario}.jsonl`], db: ':memory:' });
      expect(report.input.skipped).toEqual([]);
      expectations(scenario, truth, report);
    });
  }
});

describe('real AI SDK traces (recorded now, with the installed ai package)', () => {
  for (const scenario of ['stream-text-during-stream', 'stream-text-during-tool', 'stream-text-after-tool-responses'] as const) {
    it(`${scenario}`, async () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-ai-sdk-'));
      try {
        const truth = await recordScenario(scenario, out);
        const report = await analyze({ inputs: [out], db: ':memory:' });
        expect(report.input.skipped).toEqual([]);
        expectations(scenario, truth, report);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
