import { describe, expect, it } from 'vitest';
import { analyzeTraces, BASE_NS, traces } from '../../../test/helpers/trace-builder.js';

/** model-call-price-keys.sql: what each price is looked up by, once: provider ('' for none), model and minute of the window's model calls. */
const minuteOf = (ms: number): number => Math.floor((Number(BASE_NS / 1_000_000n) + ms) / 60_000);

describe('model-call-price-keys', () => {
  it('one row per provider, model and minute a call started in; a call without a provider has ""; a cut step and a call without a model none', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 200_000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 150, endMs: 300, model: 'gpt-5.1', output: 10 });
    r.model({ startMs: 160, endMs: 300, model: 'gpt-5.1', output: 10 }); // same minute: same key
    r.model({ startMs: 150, endMs: 300, model: 'gpt-5.1', provider: 'azure', output: 10 });
    r.model({ startMs: 150, endMs: 300, model: 'claude-sonnet-4-5', provider: null, output: 10 });
    r.model({ startMs: 120_000, endMs: 120_100, model: 'gpt-5.1', output: 10 }); // two minutes on
    r.model({ startMs: 150, endMs: 300, output: 10 }); // no model
    t.run({ startMs: 0, endMs: 900 }).model({ startMs: 0, endMs: 500, model: 'not-cancelled', output: 1 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('model-call-price-keys');
    s.close();
    expect(rows).toEqual([
      { provider: '', model: 'claude-sonnet-4-5', minute: minuteOf(150) },
      { provider: 'azure', model: 'gpt-5.1', minute: minuteOf(150) },
      { provider: 'openai', model: 'gpt-5.1', minute: minuteOf(150) },
      { provider: 'openai', model: 'gpt-5.1', minute: minuteOf(120_000) },
    ]);
    expect(minuteOf(120_000) - minuteOf(150)).toBe(2);
  });

  it('only runs in the window', async () => {
    const t = traces();
    const r = t.run({ startMs: 5000, endMs: 6000, outcome: 'cancelled' });
    r.cancelRequest(5100);
    r.model({ startMs: 5200, endMs: 5300, model: 'gpt-5.1', output: 10 });
    const s = await analyzeTraces(t, { untilMs: 5000 });
    expect(await s.rows('model-call-price-keys')).toEqual([]);
    s.close();
  });
});
