import { describe, expect, it } from 'vitest';
import { explain } from '../explain.js';
import { renderExplainHtml } from '../render/explain-html.js';
import { renderExplainMarkdown } from '../render/explain-markdown.js';
import { renderExplainTerminal } from '../render/explain-terminal.js';
import type { TimelineCommit, TimelineServiceSpan } from '../types.js';
import { serviceScenario } from '../../test/helpers/service-trace.js';
import { writeLines } from '../../test/helpers/trace-builder.js';
import { expectTimelineMatchesSpans, writtenSpans } from '../../test/helpers/timeline-check.js';

/**
 * explain over a trace whose tool's request reached a service traced in its own process (issue 49): the
 * service's lane drawn under the tool call, its times mapped to the agent's clock through the bound of the
 * request pair, the commit as its interval; the run's own items and figures what they are without it.
 */
const page = (title: string): string => `<!doctype html><html><head><title>${title}</title></head><body>`;

describe('explain with a traced service', () => {
  it('draws the service’s entry and write under the tool call, on the agent’s clock through the bound; the commit as its interval', async () => {
    const sc = serviceScenario({ skewMs: 5000, answered: true });
    const file = sc.t.write();
    const e = await explain({ target: { id: sc.run.spanId }, inputs: [file], db: ':memory:' });
    const [t] = e.timelines;
    expect(t).toBeDefined();
    const services = t!.items.filter((i): i is TimelineServiceSpan => i.kind === 'service_span');
    expect(services.map((s) => [s.span_id, s.name, s.entry, s.work, s.system, s.tool_span_id, s.request_span_id, s.call_id])).toEqual([
      [sc.entrySpanId, 'POST /send', true, false, null, sc.toolSpanId, sc.requestSpanId, 'c1'],
      [sc.writeSpanId, 'INSERT outbox', false, true, 'postgresql', sc.toolSpanId, sc.requestSpanId, 'c1'],
    ]);
    // δ ∈ [4900 − 20, 4900 + 150] ms: the midpoint 4965 ± 85 puts the write's end (5312 on its clock) at +347 ms.
    expect(services[1]!.clock_bound_ms).toEqual({ min: 4880, max: 5050 });
    expect(services[1]!.end_ms).toBeCloseTo(347, 6);
    expect(services[0]!.start_ms).toBeCloseTo(-65, 6);
    // The commit (request_sent at +20 ms): the service's write witnessed it, so its interval is the write mapped through
    // the bound, [5280 − 5050, 5312 − 4880] = [+230, +432] ms: wholly after Stop, a known ghost the service confirmed.
    const commit = t!.items.find((i): i is TimelineCommit => i.kind === 'commit')!;
    expect(commit).toMatchObject({
      span_id: sc.commitSpanId,
      ghost: 'known',
      earliest_ms: 230,
      latest_ms: 432,
      witness: 'service',
      witness_verdict: 'happened',
      clock_bound_ms: { min: 4880, max: 5050 },
      witness_service: 'mailer',
      witness_span: 'INSERT outbox',
      witness_uncertainty_ms: 85,
    });
    expect(commit.witness_end_ms).toBeCloseTo(347, 6);
    // Every item a span of the trace, the service's within its bound.
    expect(expectTimelineMatchesSpans(t!, writtenSpans([file]))).toBe(t!.items.length);
    // Not the run's calls: the run's items are what they were, plus the service's spans.
    expect(t!.items.filter((i) => i.kind === 'tool_call').map((i) => i.span_id)).toEqual([sc.toolSpanId]);

    const chart = renderExplainTerminal(e, { color: false, width: 140 })
      .split('\n')
      .filter((l) => /^\s*[-+][\d,]+ ms  /.test(l));
    const call = chart.findIndex((l) => l.includes('send_email (irreversible)'));
    expect(chart[call + 1]).toMatch(/^\s*-65 ms .*░.*↳ mailer: POST \/send  request received, ≈ ± 85 ms \(clock bound\)$/);
    expect(chart[call + 2]).toMatch(/^\s*\+315 ms .*▓.*↳ mailer: INSERT outbox \(postgresql\)  work, ≈ ± 85 ms \(clock bound\)$/);
    expect(chart.find((l) => l.includes('COMMIT'))).toMatch(
      /◆.*├─*┤.*send_email COMMIT \(irreversible, request_sent\)  ← ghost, confirmed by mailer: INSERT outbox ended 347 ms after Stop ± 85 ms \(between \+230 ms and \+432 ms\)$/,
    );
    expect(renderExplainMarkdown(e)).toContain('↳ mailer: INSERT outbox (postgresql)');
    const html = renderExplainHtml(e, page);
    expect(html).toMatch(new RegExp(`<rect class="bar service"[^>]*data-span-id="${sc.writeSpanId}" data-kind="service_span"`));
  });

  it('a write that failed after the client left rules the ghost out; an untraced service leaves the commit as the client saw it', async () => {
    const failed = serviceScenario({ skewMs: -2000, answered: true, writeFails: true });
    const e = await explain({ target: { id: failed.run.spanId }, inputs: [failed.t.write()], db: ':memory:' });
    const commit = e.timelines[0]!.items.find((i): i is TimelineCommit => i.kind === 'commit')!;
    expect(commit).toMatchObject({ ghost: null, witness: 'service', witness_verdict: 'failed', witness_span: 'INSERT outbox' });
    const text = renderExplainTerminal(e, { color: false, width: 160 });
    expect(text).toMatch(/send_email COMMIT \(irreversible, request_sent\)  no ghost: .*mailer: INSERT outbox failed: nothing committed/);
    expect(text).toMatch(/↳ mailer: INSERT outbox \(postgresql\)  work, failed, ≈ ± 85 ms \(clock bound\)/);

    // The same request to a service that exports nothing: no lane, the commit a possible ghost from its send, open.
    const sc = serviceScenario();
    const plain = sc.t.toLines().filter((l) => !l.includes('"mailer"'));
    const u = await explain({ target: { id: sc.run.spanId }, inputs: [writeLines(plain)], db: ':memory:' });
    const items = u.timelines[0]!.items;
    expect(items.some((i) => i.kind === 'service_span')).toBe(false);
    expect(items.find((i): i is TimelineCommit => i.kind === 'commit')).toMatchObject({ ghost: 'possible', earliest_ms: -100, latest_ms: null, witness: null });
    expect(renderExplainTerminal(u, { color: false, width: 160 })).toMatch(/├.*─→\s+send_email COMMIT \(irreversible, request_sent\)  ← possible ghost: request reached the service at -100 ms, its answer was lost$/m);
  });

  it('a hostile service and span name are text: escaped in HTML, made safe in a terminal', async () => {
    const sc = serviceScenario({ service: '<script>alert(1)</script>', writeName: '<img src=x onerror=alert(2)>\u001b[2J' });
    const e = await explain({ target: { id: sc.run.spanId }, inputs: [sc.t.write()], db: ':memory:' });
    const html = renderExplainHtml(e, page);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    // The service's name cut to 24 characters in a lane's label, whole in the JSON.
    expect(html).toContain('↳ &lt;script&gt;alert(1)&lt;/scrip…: &lt;img src=x onerror=alert(2)&gt;');
    expect(e.timelines[0]!.items.find((i) => i.kind === 'service_span')).toMatchObject({ service: '<script>alert(1)</script>' });
    const text = renderExplainTerminal(e, { color: false, width: 140 });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('↳ <script>alert(1)</scrip…: <img src=x onerror=alert(2)>\ufffd[2J');
  });
});
