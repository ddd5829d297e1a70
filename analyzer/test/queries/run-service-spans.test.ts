import { listValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs } from '../../../test/helpers/trace-builder.js';
import { serviceScenario } from '../../../test/helpers/service-trace.js';

/** run-service-spans.sql: the far side of a run's tool calls (issue 49), each span with its call, its request, whether it is work, and its clock bound. */
describe('run-service-spans', () => {
  it('the service’s entry and its write, under the call they served; the bound from the request pair (δmax alone: the request was not answered)', async () => {
    const sc = serviceScenario({ skewMs: 5000 });
    const s = await analyzeTraces(sc.t);
    const rows = await s.rows('run-service-spans', { runs: listValue([`${sc.run.traceId}:${sc.run.spanId}`]) });
    const timeline = await s.rows('run-timeline', { runs: listValue([`${sc.run.traceId}:${sc.run.spanId}`]) });
    s.close();
    expect(rows.map((r) => [r['span_id'], r['name'], relMs(r['start_ns']), r['entry'], r['work'], r['system']])).toEqual([
      [sc.entrySpanId, 'POST /send', 4900, true, false, null],
      [sc.writeSpanId, 'INSERT outbox', 5280, false, true, 'postgresql'],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({ service: 'mailer', process: 'mailer-1', request_span_id: sc.requestSpanId, tool_span_id: sc.toolSpanId, call_id: 'c1' });
      // δ ≤ entry.start − request.start = 4900 − (−150) ms; no answered request: no lower δ.
      expect(r['delta_max_ns']).toBe(5_050_000_000);
      expect(r['delta_min_ns']).toBeNull();
    }
    // The run's own timeline is what it was: the service's spans are not its calls.
    expect(timeline.some((r) => r['span_id'] === sc.entrySpanId || r['span_id'] === sc.writeSpanId)).toBe(false);
    const commit = timeline.find((r) => r['span_id'] === sc.commitSpanId)!;
    expect(commit).toMatchObject({ evidence: 'request_sent', unanswered_ms: 120, request_span_id: sc.requestSpanId });
  });

  it('an answered request bounds the clock from below too; a run without a traced service has none', async () => {
    const sc = serviceScenario({ skewMs: -3000, answered: true });
    const s = await analyzeTraces(sc.t);
    const rows = await s.rows('run-service-spans', { runs: listValue([`${sc.run.traceId}:${sc.run.spanId}`]) });
    const none = await s.rows('run-service-spans', { runs: listValue(['nope:nope']) });
    s.close();
    // δmax = (−100 − 3000) − (−150); δmin = (−100 − 3000) − 20.
    expect(rows.map((r) => [r['delta_max_ns'], r['delta_min_ns']])).toEqual([
      [-2_950_000_000, -3_120_000_000],
      [-2_950_000_000, -3_120_000_000],
    ]);
    expect(none).toEqual([]);
  });
});
