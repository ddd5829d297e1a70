import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../index.js';
import { PYTHON_FRAMEWORKS, pythonTurns, type PythonFramework } from '../../test/helpers/python-frameworks.js';

/**
 * Python agent frameworks' traces (test/helpers/python-frameworks.ts: two
 * turns of one conversation, the first stopped during a tool call, the second
 * refused with the provider's 400), and the same with the markers the
 * recipe in docs/manual-api.md emits. What leak-report says of each, and why.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-python-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function report(framework: PythonFramework, markers: boolean): Promise<LeakReport> {
  const file = path.join(dir, `${framework}-${markers}.jsonl`);
  fs.writeFileSync(file, `${pythonTurns(framework, { markers }).join('\n')}\n`);
  return analyze({ inputs: [file], db: ':memory:' });
}

const figures = (r: LeakReport) => ({
  framework: r.groups.map((g) => g.framework),
  runs: r.totals.runs,
  cancelled: r.totals.cancelled_runs,
  inferred: r.totals.cancelled_runs_inferred,
  unended: r.totals.unended_runs,
  ack_ms: r.totals.cancel_ack_ms.p50,
  unacknowledged: r.totals.unacknowledged_cancels,
  ghosts: r.totals.ghost_commits,
  orphans: r.totals.orphan_tool_calls,
  tokens_after_stop: r.totals.tokens_after_stop.output,
  calls_after_stop: r.totals.tokens_after_stop.calls_started_after_stop,
  next_turn_rejected: r.totals.post_cancel_errors.orphan_tool_call_rejected,
});

describe('Python frameworks, from their own traces', () => {
  it('PydanticAI: the CancelledError on the tool span is the cancel (inferred, at the tool’s end); the tool call is an orphan and the next turn’s 400 is tied to it; whether the e-mail went cannot be known', async () => {
    expect(figures(await report('pydantic-ai', false))).toEqual({
      framework: ['pydantic-ai'],
      runs: 2,
      cancelled: 1,
      inferred: 1,
      unended: 0,
      ack_ms: null,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 1,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 1,
    });
  });

  it('CrewAI: nothing in the spans marks the Stop (no cancel API; the worker thread runs on and every span ends OK): no cancel is invented, so nothing after it can be counted', async () => {
    expect(figures(await report('crewai', false))).toEqual({
      framework: ['crewai'],
      runs: 2,
      cancelled: 0,
      inferred: 0,
      unended: 0,
      ack_ms: null,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 0,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 0,
    });
  });

  it('AutoGen: the agent hangs after Stop, its invoke_agent never exported: an unended run (a finding); the tool span ends UNSET with no sign of a cancel, and without a conversation id the next turn’s 400 cannot be tied to it', async () => {
    const r = await report('autogen', false);
    expect(figures(r)).toEqual({
      framework: ['autogen', 'autogen'],
      runs: 2,
      cancelled: 0,
      inferred: 0,
      unended: 1,
      ack_ms: null,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 0,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 0,
    });
    expect(r.findings.map((f) => f.kind)).toEqual(['unended_run']);
  });

  it('OpenAI Agents SDK (Python, OpenInference): every span ends OK at the cancel, the only sign is what is missing: no cancel is invented', async () => {
    expect(figures(await report('openai-agents-python', false))).toEqual({
      framework: ['openai-agents-python'],
      runs: 2,
      cancelled: 0,
      inferred: 0,
      unended: 0,
      ack_ms: null,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 0,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 0,
    });
  });
});

describe('the same apps with the recipe’s markers (docs/manual-api.md)', () => {
  it('PydanticAI: the Stop at 600 ms, acknowledged 12 ms later; the cancelled call an orphan; the next turn rejected', async () => {
    const r = await report('pydantic-ai', true);
    expect(figures(r)).toEqual({
      framework: ['pydantic-ai'],
      runs: 2,
      cancelled: 1,
      inferred: 0,
      unended: 0,
      ack_ms: 12,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 1,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 1,
    });
    expect(r.totals.cancel_depth['4']).toBe(1);
  });

  it('CrewAI: the Stop is never acknowledged, the e-mail commits 280 ms after it (a ghost), its result comes late (an orphan), a model call starts after Stop (50 + 20 tokens billed), the next turn rejected', async () => {
    expect(figures(await report('crewai', true))).toEqual({
      framework: ['crewai'],
      runs: 2,
      cancelled: 1,
      inferred: 0,
      unended: 0,
      ack_ms: null,
      unacknowledged: 1,
      ghosts: 1,
      orphans: 1,
      tokens_after_stop: 20,
      calls_after_stop: 1,
      next_turn_rejected: 1,
    });
  });

  it('AutoGen: the Stop never acknowledged and the run unended (the hang); the e-mail committed before Stop (no ghost); the orphan and, with the conversation on the markers, the next turn’s 400', async () => {
    expect(figures(await report('autogen', true))).toEqual({
      framework: ['autogen', 'autogen'],
      runs: 2,
      cancelled: 1,
      inferred: 0,
      unended: 1,
      ack_ms: null,
      unacknowledged: 1,
      ghosts: 0,
      orphans: 1,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 1,
    });
  });

  it('OpenAI Agents SDK (Python): the Stop acknowledged in 8 ms; the cancelled call an orphan; the next turn rejected', async () => {
    expect(figures(await report('openai-agents-python', true))).toEqual({
      framework: ['openai-agents-python'],
      runs: 2,
      cancelled: 1,
      inferred: 0,
      unended: 0,
      ack_ms: 8,
      unacknowledged: 0,
      ghosts: 0,
      orphans: 1,
      tokens_after_stop: 0,
      calls_after_stop: 0,
      next_turn_rejected: 1,
    });
  });
});

describe('the recipe of docs/manual-api.md', () => {
  const readme = fs.readFileSync(fileURLToPath(new URL('../../docs/manual-api.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf("## Emitting afterstop's markers from any language"));
  const code = /```python\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

  it('is Python that compiles', () => {
    const file = path.join(dir, 'recipe.py');
    fs.writeFileSync(file, code);
    const out = spawnSync('python3', ['-m', 'py_compile', file], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  });

  it('emits the spans and attributes the tests’ marked traces hold, and no other', () => {
    const marked = PYTHON_FRAMEWORKS.flatMap((f) => pythonTurns(f, { markers: true })).map(
      (l) => JSON.parse(l) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: { name: string; attributes: { key: string }[] }[] }[] }[] },
    );
    const recipe = marked.flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.filter((ss) => ss.scope.name === 'afterstop-recipe').flatMap((ss) => ss.spans)));
    expect(recipe.length).toBeGreaterThan(0);
    const names = new Set(recipe.map((x) => x.name.replace(/^execute_tool .*/, 'execute_tool {name}')));
    const keys = new Set(recipe.flatMap((x) => x.attributes.map((a) => a.key)));
    for (const name of names) expect(code, name).toContain(name === 'execute_tool {name}' ? 'f"execute_tool {name}"' : `"${name}"`);
    for (const key of keys) expect(code, key).toContain(`"${key}"`);
    // And nothing the traces lack: every afterstop marker the code names is in them.
    for (const named of code.match(/"afterstop\.(cancel|tool)\.[a-z_]+"/g) ?? []) {
      const name = named.slice(1, -1);
      if (!['afterstop.cancel.source', 'afterstop.cancel.outcome', 'afterstop.tool.effect', 'afterstop.tool.result', 'afterstop.tool.commit.evidence'].includes(name)) expect(names, name).toContain(name);
    }
  });
});
