import { describe, expect, it } from 'vitest';
import { clientInterval, commitWitness } from '../../commit-interval.js';
import { renderExplainHtml } from '../../render/explain-html.js';
import { renderExplainMarkdown } from '../../render/explain-markdown.js';
import { renderExplainTerminal } from '../../render/explain-terminal.js';
import { timelineFigure } from '../../render/timeline-html.js';
import { timelineRows, timeRange } from '../../render/timeline-rows.js';
import { timelineSvg } from '../../render/timeline-svg.js';
import { LEGEND } from '../../render/timeline-text.js';
import { mapServiceTime, serviceItems, type ServiceSpanInput } from '../../service-spans.js';
import type { Explanation, RunFigures, RunTimeline, TimelineCommit, TimelineItem, TimelineServiceSpan } from '../../types.js';

/**
 * The far side's witness on a run's timeline (issue 49): the service's spans under the tool call, on the agent's
 * clock through the bound; a commit drawn as its interval; who witnessed it, in words, in every format.
 */
const ESC = '\u001b';
const XSS = '<script>window.__xss=1</script><img src=x onerror="alert(1)">';
const figures: RunFigures = {
  cancel_ack_ms: null,
  cancel_settle_ms: null,
  cancel_depth: 3,
  cancel_depth_reason: null,
  ghost_commits: { known: 1, possible: 0, inferred: 0, compensated: 0 },
  orphan_tool_calls: { orphans: 0, repaired: 0, late_results: 0, requested_never_run: 0, never_ended: 0, result_lost: 0 },
  tokens_after_stop: { input: 0, output: 0, observed_calls: 0, estimated_calls: 0, calls_without_usage: 0, calls_started_after_stop: 0, ghost_tax_usd: 0, unpriced_calls: 0, unpriced_tokens: { input: 0, output: 0 } },
  post_cancel_error: null,
};
const run = (items: TimelineItem[], o: Partial<RunTimeline> = {}): RunTimeline => ({
  run_id: 'r',
  trace_id: 't',
  service: 'agent',
  agent: null,
  framework: null,
  conversation_id: null,
  origin: '2026-01-01T00:00:00.000Z',
  origin_ns: '0',
  cancelled: true,
  cancel_inferred: false,
  outcome: 'cancelled',
  start_ms: -300,
  end_ms: 600,
  ack_ms: null,
  settle_ms: null,
  uninstrumented: [],
  items,
  figures,
  next_run: null,
  ...o,
});
const stop: TimelineItem = { kind: 'marker', span_id: 'stop', start_ms: 0, name: 'afterstop.cancel.request' };
const tool: TimelineItem = {
  kind: 'tool_call',
  span_id: 'tool1',
  start_ms: -200,
  end_ms: 20,
  tool: 'send_email',
  call_id: 'c1',
  effect: 'irreversible',
  tool_kind: null,
  result: 'cancelled',
  status: 'error',
  outcome: null,
  late: false,
  ghost: null,
  recorded: true,
  mcp: null,
};
const bound = { min: -6, max: 2 };
const service = (o: Partial<TimelineServiceSpan>): TimelineServiceSpan => ({
  kind: 'service_span',
  span_id: 'e1',
  start_ms: -150,
  end_ms: 330,
  name: 'POST /send',
  service: 'mailer',
  process: 'mailer/1',
  status: 'unset',
  work: false,
  entry: true,
  system: null,
  call_id: 'c1',
  tool_span_id: 'tool1',
  request_span_id: 'req1',
  approximate: true,
  clock_bound_ms: bound,
  ...o,
});
const entry = service({});
const write = service({ span_id: 'w1', start_ms: 280, end_ms: 312, name: 'INSERT outbox', entry: false, work: true, system: 'postgresql' });
const commit = (o: Partial<TimelineCommit>): TimelineCommit => ({
  kind: 'commit',
  span_id: 'k1',
  start_ms: 20,
  tool: 'send_email',
  call_id: 'c1',
  effect: 'irreversible',
  evidence: 'request_sent',
  ghost: null,
  compensated: false,
  sent_ms: null,
  earliest_ms: 20,
  latest_ms: 20,
  witness: null,
  witness_verdict: null,
  clock_bound_ms: null,
  witness_service: null,
  witness_span: null,
  witness_end_ms: null,
  witness_uncertainty_ms: null,
  ...o,
});
const known = commit({
  ghost: 'known',
  earliest_ms: 280,
  latest_ms: 312,
  witness: 'service',
  witness_verdict: 'happened',
  clock_bound_ms: bound,
  witness_service: 'mailer',
  witness_span: 'INSERT outbox',
  witness_end_ms: 312,
  witness_uncertainty_ms: 4,
});
const explanation = (t: RunTimeline): Explanation => ({ finding: null, timelines: [t], runs_not_drawn: 0, skipped: [] });
const page = (title: string): string => `<!doctype html><html><head><title>${title}</title></head><body>`;

describe('the service’s spans on the agent’s clock', () => {
  it('a service time maps to [t − δmax, t − δmin], drawn at its midpoint; δmax alone: its earliest; no bound: as it is', () => {
    expect(mapServiceTime(1000, { min: -6, max: 2 })).toEqual({ at: 1002, earliest: 998, latest: 1006, uncertainty: 4 });
    expect(mapServiceTime(1000, { min: null, max: 2 })).toEqual({ at: 998, earliest: 998, latest: null, uncertainty: null });
    expect(mapServiceTime(1000, null)).toEqual({ at: 1000, earliest: 1000, latest: 1000, uncertainty: null });
  });

  it('rows of the query become items at the mapped times, the bound kept with them', () => {
    const row: ServiceSpanInput = {
      span_id: 'w1',
      name: 'INSERT outbox',
      kind: 3,
      service: 'mailer',
      process: 'mailer/1',
      start_ns: 5_000_000_000n + 280_000_000n,
      end_ns: 5_000_000_000n + 312_000_000n,
      status_code: 0,
      system: 'postgresql',
      work: true,
      entry: false,
      call_id: 'c1',
      tool_span_id: 'tool1',
      request_span_id: 'req1',
      delta_max_ns: 2_000_000n,
      delta_min_ns: -6_000_000n,
    };
    const [item] = serviceItems([row], 5_000_000_000n);
    expect(item).toMatchObject({ kind: 'service_span', start_ms: 282, end_ms: 314, work: true, approximate: true, clock_bound_ms: { min: -6, max: 2 } });
  });
});

describe('a commit’s interval and witness', () => {
  it('the client’s rule: response, its round trip; request_sent, from the send with no end; manual, a point', () => {
    const at = 1_000_000_000n;
    expect(clientInterval({ evidence: 'response', marker_ns: at, round_trip_ms: 150, unanswered_ms: null }, 0n)).toEqual({ earliest_ms: 850, latest_ms: 1000 });
    expect(clientInterval({ evidence: 'request_sent', marker_ns: at, round_trip_ms: null, unanswered_ms: 40 }, 0n)).toEqual({ earliest_ms: 960, latest_ms: null });
    expect(clientInterval({ evidence: 'manual', marker_ns: at, round_trip_ms: null, unanswered_ms: null }, 0n)).toEqual({ earliest_ms: 1000, latest_ms: 1000 });
    // An older afterstop's response (no round trip): the point, as it was drawn.
    expect(clientInterval({ evidence: 'response', marker_ns: at, round_trip_ms: null, unanswered_ms: null }, 0n)).toEqual({ earliest_ms: 1000, latest_ms: 1000 });
  });

  it('the report’s interval and witness win; the deciding span is the service’s last good work span under the request', () => {
    const w = commitWitness(
      {
        evidence: 'request_sent',
        marker_ns: 20_000_000n,
        round_trip_ms: null,
        unanswered_ms: 170,
        earliest_ns: 280_000_000n,
        latest_ns: 312_000_000n,
        decided: true,
        witness: 'service',
        witness_verdict: 'happened',
        delta_min_ns: -6_000_000n,
        delta_max_ns: 2_000_000n,
        request_span_id: 'req1',
        witness_service: null,
        witness_span: null,
        witness_end_ns: null,
      },
      0n,
      [entry, write, service({ span_id: 'w0', start_ms: 100, end_ms: 120, entry: false, work: true, name: 'SELECT 1' }), service({ span_id: 'other', request_span_id: 'req2', entry: false, work: true, end_ms: 900 })],
    );
    expect(w).toEqual({
      earliest_ms: 280,
      latest_ms: 312,
      witness: 'service',
      witness_verdict: 'happened',
      clock_bound_ms: bound,
      witness_service: 'mailer',
      witness_span: 'INSERT outbox',
      witness_end_ms: 312,
      witness_uncertainty_ms: 4,
    });
    // Without the report's interval (not a ghost): the client's, open after the send.
    const own = commitWitness(
      {
        ...{ evidence: 'request_sent', marker_ns: 20_000_000n, round_trip_ms: null, unanswered_ms: 170 },
        earliest_ns: null,
        latest_ns: null,
        decided: false,
        witness: null,
        witness_verdict: null,
        delta_min_ns: null,
        delta_max_ns: null,
        request_span_id: null,
        witness_service: null,
        witness_span: null,
        witness_end_ns: null,
      },
      0n,
      [],
    );
    expect(own).toMatchObject({ earliest_ms: -150, latest_ms: null, witness: null, witness_service: null });
    // The report's deciding span, its end on the service's clock (+5,312 ms), mapped at the bound's midpoint: 4,965 ± 85 ms.
    const named = commitWitness(
      {
        evidence: 'request_sent',
        marker_ns: 20_000_000n,
        round_trip_ms: null,
        unanswered_ms: 120,
        earliest_ns: 262_000_000n,
        latest_ns: 432_000_000n,
        decided: true,
        witness: 'service',
        witness_verdict: 'happened',
        delta_min_ns: 4_880_000_000n,
        delta_max_ns: 5_050_000_000n,
        request_span_id: 'req1',
        witness_service: 'mailer',
        witness_span: 'INSERT outbox',
        witness_end_ns: 5_312_000_000n,
      },
      0n,
      [],
    );
    expect(named).toMatchObject({ witness_service: 'mailer', witness_span: 'INSERT outbox', witness_end_ms: 347, witness_uncertainty_ms: 85, clock_bound_ms: { min: 4880, max: 5050 } });
  });
});

describe('the rows every format draws', () => {
  it('the service’s spans lie right under their tool call, whatever their time; the known ghost says who witnessed it', () => {
    const rows = timelineRows(run([tool, stop, entry, write, known, commit({ span_id: 'k0', start_ms: -250, tool: 'lookup', call_id: 'c0' })]));
    expect(rows.map((r) => r.label)).toEqual([
      'lookup COMMIT (irreversible, request_sent)',
      'send_email (irreversible)',
      '↳ mailer: POST /send',
      '↳ mailer: INSERT outbox (postgresql)',
      'Stop',
      'send_email COMMIT (irreversible, request_sent)',
    ]);
    expect(rows[3]).toMatchObject({ service: true, shape: 'bar', inferred: true, alarm: true, note: 'work, ≈ ± 4 ms (clock bound)' });
    expect(rows[2]).toMatchObject({ service: true, alarm: false, note: 'request received, ≈ ± 4 ms (clock bound)' });
    expect(rows[5]!.note).toBe('← ghost, confirmed by mailer: INSERT outbox ended 312 ms after Stop ± 4 ms (between +280 ms and +312 ms)');
    expect(rows[5]!.interval).toEqual({ from: 280, to: 312 });
    expect(timeRange(run([tool, known])).to).toBe(600);
  });

  it('a commit across Stop is a possible ghost said as its interval; a failed witness rules a ghost out; an open interval says no end is known', () => {
    const across = commit({ ghost: 'possible', evidence: 'response', start_ms: 150, earliest_ms: -20, latest_ms: 150 });
    const failed = commit({
      evidence: 'request_sent',
      earliest_ms: 280,
      latest_ms: 312,
      witness: 'service',
      witness_verdict: 'failed',
      clock_bound_ms: bound,
      witness_service: 'mailer',
      witness_span: 'INSERT outbox',
      witness_end_ms: 312,
      witness_uncertainty_ms: 4,
    });
    const open = commit({ ghost: 'possible', sent_ms: -40, earliest_ms: -40, latest_ms: null });
    const notes = timelineRows(run([stop, across, failed, open])).map((r) => [r.label, r.note, r.interval]);
    expect(notes).toEqual([
      ['Stop', '', null],
      ['send_email COMMIT (irreversible, request_sent)', 'no ghost: between +280 ms and +312 ms; mailer: INSERT outbox failed: nothing committed', { from: 280, to: 312 }],
      ['send_email COMMIT (irreversible, request_sent)', '← possible ghost: request reached the service at -40 ms, its answer was lost', { from: -40, to: null }],
      ['send_email COMMIT (irreversible, response)', '← possible ghost: committed between -20 ms and +150 ms, across Stop', { from: -20, to: 150 }],
    ]);
  });

  it('a timeline read back from an older report (commits without interval or witness) is drawn as before', () => {
    const old = { kind: 'commit', span_id: 'k', start_ms: 30, tool: 'x', call_id: null, effect: null, evidence: null, ghost: 'known', compensated: false, sent_ms: null } as unknown as TimelineCommit;
    const [row] = timelineRows(run([old]), true);
    expect(row).toMatchObject({ note: '← ghost', interval: null });
  });
});

describe('explain in a terminal, in Markdown and in HTML', () => {
  const hostile = service({ span_id: 'h1', service: `evil${ESC}[31m${XSS}`, name: `DROP ${ESC}]0;pwned\u0007 ${XSS}`, entry: false, work: true, start_ms: 200, end_ms: 260 });
  const t = run([tool, stop, entry, write, hostile, known, commit({ span_id: 'k2', start_ms: 10, ghost: 'possible', sent_ms: -40, earliest_ms: -40, latest_ms: null })]);

  it('terminal: the service’s lane under the call (░▓), the commit’s interval ├─┤ and an open one ─→, the witness in words; the legend names them', () => {
    const text = renderExplainTerminal(explanation(t), { color: false, width: 140 });
    const chart = text.split('\n').filter((l) => /^\s*[-+][\d,]+ ms  /.test(l));
    const i = chart.findIndex((l) => l.includes('send_email (irreversible)'));
    // Under the call, in time order there: the entry, the hostile span (its escapes shown as U+FFFD), the write.
    expect(chart[i + 1]).toMatch(/░+.*↳ mailer: POST \/send/);
    expect(chart[i + 2]).toMatch(/▓+ +↳ evil\ufffd\[31m<script>.*: DROP \ufffd\]0;pwned\ufffd /);
    expect(chart[i + 3]).toMatch(/▓+.*↳ mailer: INSERT outbox \(postgresql\)/);
    const ghostLine = chart.find((l) => l.includes('confirmed by mailer'))!;
    expect(ghostLine).toMatch(/├─*◆?─*┤/);
    expect(ghostLine).toContain('← ghost, confirmed by mailer: INSERT outbox ended 312 ms after Stop ± 4 ms');
    const openLine = chart.find((l) => l.includes('its answer was lost'))!;
    expect(openLine).toMatch(/├.*◆.*─→/);
    // The legend is wrapped at the terminal's width, at its spaces, and no line is wider than it.
    expect(text.replace(/\n/g, ' ')).toContain(LEGEND);
    expect(
      Math.max(
        ...text
          .split('\n')
          .filter((l) => !/^\s*[-+][\d,]+ ms  /.test(l))
          .map((l) => [...l].length),
      ),
    ).toBeLessThanOrEqual(140);
    expect(LEGEND).toMatch(/├─┤ its interval/);
    expect(LEGEND).toMatch(/░▓ ↳ the service's span/);
    expect(text).not.toContain(ESC);
    expect(text).not.toContain('\u0007');
  });

  it('Markdown: the same chart in a fence, the legend after it', () => {
    const md = renderExplainMarkdown(explanation(t));
    expect(md).toContain('↳ mailer: INSERT outbox (postgresql)');
    expect(md).toContain('confirmed by mailer: INSERT outbox ended 312 ms after Stop ± 4 ms');
    expect(md.replace(/\n/g, ' ')).toContain(`${LEGEND}; offsets from Stop`);
    expect(md).not.toContain(ESC);
  });

  it('HTML: service lanes and the interval drawn with their data; every name escaped; the legend names the marks', () => {
    const svg = timelineSvg(t);
    expect(svg).toMatch(/<rect class="bar service"[^>]*data-span-id="w1" data-kind="service_span" data-start-ms="280" data-end-ms="312"/);
    expect(svg).toMatch(/<line class="interval"[^>]*data-span-id="k1"[^>]*data-part="interval" data-from-ms="280" data-to-ms="312"/);
    expect(svg).toMatch(/<line class="interval"[^>]*data-span-id="k2"[^>]*data-part="interval" data-from-ms="-40" data-open="true"/);
    expect(svg).toContain('class="interval-open"');
    const html = renderExplainHtml(explanation(t), page);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('confirmed by mailer: INSERT outbox ended 312 ms after Stop ± 4 ms');
    expect(timelineFigure(t, 0)).toMatch(/↳ the service’s span under its tool call/);
    expect(timelineFigure(t, 0)).toMatch(/├─┤ its interval/);
  });
});
