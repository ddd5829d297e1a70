import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Explanation } from '../../../types.js';
import { sdkApps } from '../../../../test/helpers/sdk-app.js';
import { expectTimelineMatchesSpans, writtenSpans } from '../../../../test/helpers/timeline-check.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/**
 * `afterstop explain` on a run recorded from each instrumented framework: the
 * app run as a user runs it (`node --import afterstop/register`) against the
 * simulator, stopped mid-run; then the command over the traces it wrote, by
 * the trace id of its Stop. Each drawn item is a span of the run.
 */
const cli = cliPath;
const { app, runApp } = sdkApps();

const FRAMEWORKS: { framework: string; app: string; scenario: string; env?: Record<string, string>; tool: boolean; model?: false }[] = [
  { framework: 'vercel-ai', app: 'ai-sdk-app.mjs', scenario: 'tool-ignores', env: { PROVIDER: 'openai' }, tool: true },
  { framework: 'openai-agents', app: 'openai-agents-app.mjs', scenario: 'next-turn', tool: true },
  { framework: 'langgraph', app: 'langgraph-agent-app.mjs', scenario: 'tool-next', tool: true },
  { framework: 'mastra', app: 'mastra-app.mjs', scenario: 'tool-ignores', tool: true },
  // A workflow of steps without a model call: its steps are drawn as tool calls of kind step.
  { framework: 'llamaindex', app: 'llamaindex-app.mjs', scenario: 'cancel-reader', tool: true, model: false },
  { framework: 'openai', app: 'openai-app.mjs', scenario: 'signal', tool: false },
  { framework: 'anthropic', app: 'anthropic-app.mjs', scenario: 'signal', tool: false },
];

const explainCli = (args: string[]) => spawnSync(process.execPath, [cli, 'explain', ...args, '--db', ':memory:', '--no-progress'], { encoding: 'utf8', timeout: 60_000 });

describe('explain on a run recorded from each instrumented framework', () => {
  it.each(FRAMEWORKS)(
    '$framework ($scenario)',
    async ({ app: file, scenario, env, tool, model }) => {
      const r = await runApp(app(file), scenario, env);
      const spans = writtenSpans([r.traces]);
      const stop = [...spans.values()].find((s) => s.name === 'afterstop.cancel.request');
      expect(stop, 'the app pressed Stop').toBeDefined();

      const json = explainCli([stop!.traceId, r.traces, '--format', 'json']);
      expect(json.status, json.stderr).toBe(0);
      const e = JSON.parse(json.stdout) as Explanation;
      const t = e.timelines.find((x) => x.items.some((i) => i.span_id === stop!.spanId))!;
      expect(t).toBeDefined();
      expect(t).toMatchObject({ cancelled: true, cancel_inferred: false });
      expect(BigInt(t.origin_ns)).toBe(stop!.startNs);
      if (model !== false) expect(t.items.filter((i) => i.kind === 'model_call').length).toBeGreaterThanOrEqual(1);
      if (tool) expect(t.items.some((i) => i.kind === 'tool_call')).toBe(true);
      expect(expectTimelineMatchesSpans(t, spans)).toBe(t.items.length + (t.next_run?.items.length ?? 0));
      expect(t.figures.cancel_depth).not.toBeNull();

      const table = explainCli([stop!.traceId, r.traces, '--format', 'table']);
      expect(table.status, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^\s*\+0 ms  .*│.*Stop$/m);
      expect(table.stdout).toMatch(/cancel depth\s+\d of 4/);
      if (process.env['AFTERSTOP_SHOW_EXPLAIN']) process.stderr.write(`${table.stdout}\n`);
    },
    120_000,
  );
});
