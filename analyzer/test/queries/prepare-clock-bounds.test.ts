import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/**
 * prepare-clock-bounds.sql (issue 49): the clock bound per ordered pair of processes over every clock pair the store
 * keeps: δ_max the least server start − client start of any pair, δ_min the greatest server start − client end of an
 * answered one (none answered: NULL).
 */
describe('prepare-clock-bounds', () => {
  it('bounds each pair of processes from the pairs of every trace; without an answered pair, from above only', async () => {
    const t = traces();
    // orders-api: an answered request in one trace (δ in [11 − 13, 11 − 10] = [−2, 1]) and a cut one in another (δ ≤ 95 − 60).
    const first = t.run({ startMs: 0, endMs: 50, outcome: 'completed' });
    first.tool({ name: 'list_orders', callId: 'o1', startMs: 1, endMs: 20, effect: 'read' });
    first.serviceSpan({ name: 'GET /orders', parent: first.request({ callId: 'o1', startMs: 10, endMs: 13, status: 200 }), kind: 2, startMs: 11, endMs: 12 });
    const second = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    second.cancelRequest(100);
    second.tool({ name: 'send_order', callId: 'c1', startMs: 60, endMs: 150, result: 'cancelled' });
    second.serviceSpan({ name: 'POST /orders', parent: second.request({ callId: 'c1', startMs: 60, endMs: 150 }), kind: 2, startMs: 95, endMs: 130 });
    // mailer, 5 s ahead: a cut request only, so no lower bound.
    second.tool({ name: 'send_email', callId: 'm1', startMs: 70, endMs: 150, result: 'cancelled' });
    second.serviceSpan({ name: 'POST /send', parent: second.request({ callId: 'm1', startMs: 70, endMs: 150 }), kind: 2, startMs: 5080, endMs: 5200, service: 'mailer' });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_clock_bounds', 'ORDER BY server_process');
    a.close();
    expect(rows.map((b) => [b['client_process'], b['server_process'], b['d_min_ns'] === null ? null : Number(b['d_min_ns']) / 1e6, Number(b['d_max_ns']) / 1e6])).toEqual([
      ['svc', 'mailer-1', null, 5010],
      ['svc', 'orders-api-1', -2, 1],
    ]);
  });
});
