import { tableFromIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { renderPrometheus } from '../../metrics/prometheus.js';
import { renderArrow } from '../../render/arrow.js';
import { renderHtml } from '../../render/html.js';
import { renderMarkdown } from '../../render/markdown.js';
import { renderTerminal } from '../../render/terminal.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * Unpriced is loud: a report whose spend after Stop is partly without a price (a model genai-prices does not
 * know) says how many calls and tokens in every format, and the ghost tax never reads as a plain dollar
 * figure in the terminal and Markdown.
 */
let report: LeakReport;
let allPriced: LeakReport;
beforeAll(async () => {
  const t = traces();
  const r = t.run({ service: 'svc', startMs: 0, endMs: 2000, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: 'openai', input: 1000, output: 100 });
  r.model({ startMs: 200, endMs: 300, model: 'my-finetune-7b', input: 1200, output: 34 });
  r.model({ startMs: 300, endMs: 400, model: 'my-finetune-7b', input: 0, output: 66 });
  report = await analyze({ inputs: [t.write()], db: ':memory:' });
  const p = traces();
  const q = p.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
  q.cancelRequest(100);
  q.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: 'openai', input: 1000, output: 100 });
  allPriced = await analyze({ inputs: [p.write()], db: ':memory:' });
});

describe('unpriced spend after Stop, in every format', () => {
  it('json: the calls and their tokens, in the totals and the group; the priced call’s cost from genai-prices', () => {
    const json = JSON.parse(JSON.stringify(report)) as LeakReport;
    expect(json.totals.tokens_after_stop.unpriced_calls).toBe(2);
    expect(json.totals.tokens_after_stop.unpriced_tokens).toEqual({ input: 1200, output: 100 });
    expect(json.groups[0]!.tokens_after_stop.unpriced_tokens).toEqual({ input: 1200, output: 100 });
    expect(json.totals.ghost_tax_usd).toBeCloseTo(1000 * 1.25e-6 + 100 * 10e-6, 9);
    expect(json.prices.source).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
  });

  it('terminal and Markdown: the ghost tax with the unpriced calls and tokens beside it, never a plain dollar figure', () => {
    const text = renderTerminal(report, { color: false });
    expect(text).toMatch(/Ghost tax\s+\$0\.0022 \+ 2 unpriced calls \(1,300 tokens: 1,200 input, 100 output\)/);
    expect(renderMarkdown(report)).toContain('| Ghost tax | $0.0022 + 2 unpriced calls (1,300 tokens: 1,200 input, 100 output) |');
    // Everything priced: the dollars alone.
    expect(renderTerminal(allPriced, { color: false })).toMatch(/Ghost tax\s+\$0\.0022\n/);
    expect(renderMarkdown(allPriced)).toContain('| Ghost tax | $0.0022 |');
  });

  it('html: the ghost tax card says what is missing from it', () => {
    expect(renderHtml(report)).toContain('and unpriced, missing from it: 2 call(s), 1,200 input and 100 output tokens');
    expect(renderHtml(allPriced)).not.toContain('unpriced');
  });

  it('arrow: columns of the unpriced calls and tokens, per group and in total', () => {
    const groups = tableFromIPC(renderArrow(report).groups);
    const col = (name: string) => Array.from(groups.getChild(name)?.toArray() ?? [], Number);
    expect(col('tokens_after_stop_unpriced_calls')).toEqual([2, 2]);
    expect(col('tokens_after_stop_unpriced_tokens_input')).toEqual([1200, 1200]);
    expect(col('tokens_after_stop_unpriced_tokens_output')).toEqual([100, 100]);
  });

  it('Prometheus: the unpriced calls and their tokens by direction', async () => {
    const text = await renderPrometheus(report, { now: 0 });
    expect(text).toMatch(/^afterstop_after_stop_unpriced_model_calls\{service="svc",[^}]*\} 2$/m);
    expect(text).toMatch(/^afterstop_after_stop_unpriced_tokens\{service="svc",[^}]*direction="input"\} 1200$/m);
    expect(text).toMatch(/^afterstop_after_stop_unpriced_tokens\{service="svc",[^}]*direction="output"\} 100$/m);
  });
});
