/**
 * Run timelines in HTML: one figure per run (its SVG and its figures), for
 * the leak report's page and `afterstop explain --format html`'s
 * (explain-html.ts). Every string escaped.
 */
import type { Finding, RunTimeline } from '../types.js';
import { int } from './format.js';
import { escapeHtml } from './svg-chart.js';
import { figureLines, runTitle } from './timeline-rows.js';
import { timelineSvg } from './timeline-svg.js';

/** The anchor of the i-th timeline of a page. */
export const timelineAnchor = (i: number): string => `timeline-${i + 1}`;

/**
 * Which timeline draws a finding's run: a post-cancel error's, the cancelled run its next run's error follows;
 * any other's, its own (else one where it is the next run).
 */
export function timelineOf(timelines: readonly RunTimeline[], f: Pick<Finding, 'kind' | 'trace_id' | 'run_id'>): number {
  const same = (t: RunTimeline | null): boolean => t !== null && t.trace_id === f.trace_id && t.run_id === f.run_id;
  const own = timelines.findIndex((t) => same(t));
  const asNext = timelines.findIndex((t) => same(t.next_run));
  return f.kind === 'post_cancel_error' ? (asNext >= 0 ? asNext : own) : own >= 0 ? own : asNext;
}

/** One run's figure: heading, the SVG, and its figures (METRICS.md). */
export function timelineFigure(t: RunTimeline, i: number, findings: readonly { number: number; finding: Finding }[] = []): string {
  const about =
    findings.length === 0
      ? ''
      : `<p class="about">${findings.map(({ number, finding }) => `<span class="sev sev-${Math.min(3, Math.max(1, Math.round(finding.severity)))}">#${int(number)}</span> ${escapeHtml(finding.detail)}`).join('<br>')}</p>`;
  const figures = figureLines(t)
    .map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`)
    .join('');
  return `<section class="run-timeline" id="${timelineAnchor(i)}">
<h3>Run <code>${escapeHtml(t.run_id)}</code> of trace <code>${escapeHtml(t.trace_id)}</code></h3>
<p class="muted-line">${escapeHtml(runTitle(t))}</p>
${about}<div class="scroll">${timelineSvg(t)}</div>
<p class="legend-line"><span class="swatch" style="background:#4e79a7"></span>model call <span class="swatch" style="background:#f28e2b"></span>tool call <span class="swatch" style="background:#cf222e"></span>after Stop / ghost · <span class="swatch" style="background:#76b7b2"></span>↳ the service’s span under its tool call (its clock mapped through the bound: ≈) · ◆ commit, ├─┤ its interval (dashed →: no end known) · ● marker · red line Stop (dashed: inferred), green ack, purple settle, each named above the lanes · a name or note cut short (…) reads whole in the tooltip of the lane’s name · offsets from Stop</p>
<dl class="run-figures">${figures}</dl>
</section>`;
}

export const TIMELINE_HTML_STYLE = `
.run-timeline { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 12px 0; break-inside: avoid; }
.run-timeline h3 { font-size: 15px; margin: 0 0 2px; } .muted-line, .legend-line { color: var(--muted); font-size: 12px; margin: 2px 0 6px; }
.run-figures { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; } .run-figures div { display: contents; }
.about { margin: 4px 0 8px; }
`;
