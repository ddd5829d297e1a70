/**
 * The leak report as one self-contained HTML page: inline style, SVG charts
 * rendered here, no script, no external URL (a strict Content-Security-Policy
 * says so), so that it opens offline and prints. It shows the report's
 * figures as they are; it computes none of them.
 */
import type { BudgetStatus } from '../metrics/metric-families.js';
import { skippedPlace } from '../report-evidence.js';
import { FIGURES_STYLE, figureSections, verdictBanner } from './html-figures.js';
import { findingGroups } from './remedies.js';
import type { Bar } from './svg-chart.js';
import { lowerBound, noFindings } from './summary.js';
import { barChart, columnChart, escapeHtml, isEmpty, legend, paletteColor, shorten } from './svg-chart.js';
import { bucketLabel, int, ms, usd } from './format.js';
import type { Finding, FrameworkScore, GroupFigures, HistogramBucket, LeakReport, TimelinePoint } from '../types.js';
import { TIMELINE_HTML_STYLE, timelineAnchor, timelineFigure, timelineOf } from './timeline-html.js';
import { TIMELINE_STYLE } from './timeline-svg.js';

export { escapeHtml } from './svg-chart.js';

export interface HtmlOptions {
  /**
   * A link for each trace id of the findings: an http: or https: URL where
   * `{trace_id}` and `{run_id}` are replaced (URI-encoded), e.g.
   * `http://tempo:3200/trace/{trace_id}`.
   */
  traceUrl?: string;
  /** When the page says it was generated (default: now). */
  generatedAt?: Date;
  /** The budgets given, as cli/budgets.ts judged them: a figure over its budget says so, and the verdict names it. */
  budgets?: readonly BudgetStatus[];
}

/** No script, nothing from the network: the page's Content-Security-Policy. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
const NONE = '–';

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/** Throw unless `template` is an absolute http: or https: URL (its `{trace_id}` and `{run_id}` aside). */
export function checkTraceUrl(template: string): void {
  let protocol: string;
  try {
    protocol = new URL(template.replaceAll('{trace_id}', 'x').replaceAll('{run_id}', 'x')).protocol;
  } catch {
    throw new Error(`the trace URL template must be an absolute http: or https: URL (with {trace_id} and/or {run_id}); got ${JSON.stringify(template)}`);
  }
  if (!ALLOWED_PROTOCOLS.has(protocol)) {
    throw new Error(`the trace URL template must be an http: or https: URL; ${protocol} URLs are not allowed (got ${JSON.stringify(template)})`);
  }
}

/** The URL of a finding's trace: the template with its placeholders replaced by URI-encoded values. */
function traceHref(template: string, traceId: string, runId: string): string | undefined {
  const href = template.replaceAll('{trace_id}', encodeURIComponent(traceId)).replaceAll('{run_id}', encodeURIComponent(runId));
  try {
    return ALLOWED_PROTOCOLS.has(new URL(href).protocol) ? href : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: string | null | undefined, fallback = NONE): string => escapeHtml(value ?? fallback);
const serviceName = (service: string | null): string => service ?? '(no service)';
const groupName = (g: GroupFigures): string => `${serviceName(g.service)} / ${g.agent ?? NONE} / ${g.framework ?? NONE}`;
const tokens = (t: { input: number; output: number }): number => t.input + t.output;
/** A chart and, when it has data, its legend. */
const withLegend = (chart: string, bars: Bar[], items: { label: string; color: string }[]): string => (isEmpty(bars) ? chart : chart + legend(items));

function histogram(name: string, what: string, buckets: HistogramBucket[]): string {
  const bars: Bar[] = buckets.map((b, i) => {
    const label = bucketLabel(b.upper_ms, buckets[i - 1]?.upper_ms ?? null);
    return { label, segments: [{ value: b.runs, color: paletteColor(0), title: `${label}: ${int(b.runs)} cancelled runs` }] };
  });
  return columnChart({ name, label: `Cancelled runs by ${what}`, bars, format: int, integer: true });
}

/** The time buckets of the timeline as columns, one segment per service (a legend names them). */
function timelineChart(report: LeakReport, name: string, label: string, value: (p: TimelinePoint) => number, format: (n: number) => string, integer: boolean): string {
  const { unit, points } = report.timeline;
  const services = [...new Set(points.map((p) => serviceName(p.service)))].sort();
  const color = (p: TimelinePoint): string => paletteColor(services.indexOf(serviceName(p.service)));
  const times = [...new Set(points.map((p) => p.time))].sort();
  const when = (time: string): string => (unit === 'day' ? time.slice(0, 10) : `${time.slice(0, 10)} ${time.slice(11, 16)}`);
  const bars: Bar[] = times.map((time) => ({
    label: unit === 'day' ? time.slice(5, 10) : `${time.slice(5, 10)} ${time.slice(11, 16)}`,
    segments: points
      .filter((p) => p.time === time)
      .map((p) => ({
        value: value(p),
        color: color(p),
        title: `${when(time)} UTC, ${serviceName(p.service)}: ${format(value(p))}`,
      })),
  }));
  return withLegend(
    columnChart({ name, label, bars, format, integer }),
    bars,
    services.map((s, i) => ({ label: s, color: paletteColor(i) })),
  );
}

const EFFECT_COLORS: Record<string, string> = {
  irreversible: '#c0392b',
  unknown: '#e67e22',
  reversible: '#2e86c1',
  idempotent: '#27ae60',
  read: '#95a5a6',
  read_only: '#95a5a6',
};

/** A possible ghost commit: in flight at Stop, its outcome not seen. */
const POSSIBLE_COLOR = '#bdbdbd';
/** A commit the guard's fence prevented: nothing was sent. */
const PREVENTED_COLOR = '#1a9850';

function ghostCommitsByTool(report: LeakReport): string {
  const rows = report.totals.ghost_commits_by_tool;
  const effects = [...new Set(rows.map((t) => t.effect))];
  const color = (effect: string): string => EFFECT_COLORS[effect] ?? paletteColor(effects.indexOf(effect));
  const possible = rows.some((t) => t.ghost_commits_possible > 0);
  const prevented = rows.some((t) => t.commits_prevented > 0);
  const bars: Bar[] = rows.map((t) => ({
    label: t.tool,
    total: [int(t.ghost_commits), ...(t.ghost_commits_possible > 0 ? [`${int(t.ghost_commits_possible)} possible`] : []), ...(t.commits_prevented > 0 ? [`${int(t.commits_prevented)} prevented`] : [])].join(' + '),
    segments: [
      { value: t.ghost_commits, color: color(t.effect), title: `${t.tool} (${t.effect}): ${int(t.ghost_commits)} ghost commits, ${int(t.ghost_commits_inferred)} inferred` },
      ...(t.ghost_commits_possible > 0
        ? [{ value: t.ghost_commits_possible, color: POSSIBLE_COLOR, title: `${t.tool} (${t.effect}): ${int(t.ghost_commits_possible)} possible (in flight at Stop, outcome not seen)` }]
        : []),
      ...(t.commits_prevented > 0 ? [{ value: t.commits_prevented, color: PREVENTED_COLOR, title: `${t.tool} (${t.effect}): ${int(t.commits_prevented)} prevented by the guard (nothing sent)` }] : []),
    ],
  }));
  const chart = barChart({ name: 'ghost-commits-by-tool', label: 'Ghost commits by tool, coloured by effect (grey: possible, outcome not seen; green: prevented by the guard)', bars, format: int, integer: true });
  return withLegend(chart, bars, [
    ...effects.map((e) => ({ label: e, color: color(e) })),
    ...(possible ? [{ label: 'possible', color: POSSIBLE_COLOR }] : []),
    ...(prevented ? [{ label: 'prevented (guard)', color: PREVENTED_COLOR }] : []),
  ]);
}

const DEPTHS = ['0', '1', '2', '3', '4'] as const;
const DEPTH_COLORS = ['#d7301f', '#fc8d59', '#fdcc8a', '#91cf60', '#1a9850'];
const DEPTH_LABELS = ['0: the loop went on', '1: the loop stopped', '2: + model calls ended', '3: + tool calls ended', '4: + no ghost commit'];

function cancelDepth(scores: FrameworkScore[]): string {
  const bars: Bar[] = scores.map((f) => {
    const framework = f.framework ?? '(no framework)';
    return {
      label: framework,
      total: `${int(f.cancelled_runs)} runs`,
      segments: DEPTHS.map((d, i) => ({
        value: f.cancel_depth[d],
        color: DEPTH_COLORS[i] ?? '#888888',
        title: `${framework}, depth ${DEPTH_LABELS[i] ?? d}: ${int(f.cancel_depth[d])} runs`,
      })),
    };
  });
  const chart = barChart({ name: 'cancel-depth', label: 'Cancelled runs by cancel depth (0 to 4), per framework', bars, format: int, integer: true });
  return withLegend(
    chart,
    bars,
    DEPTH_LABELS.map((label, i) => ({ label, color: DEPTH_COLORS[i] ?? '#888888' })),
  );
}

function charts(report: LeakReport): string {
  const t = report.totals;
  const figure = (title: string, body: string): string => `<figure><figcaption>${escapeHtml(title)}</figcaption>${body}</figure>`;
  const groups: Bar[] = report.groups.map((g) => ({
    label: groupName(g),
    total: usd(g.ghost_tax_usd),
    segments: [{ value: g.ghost_tax_usd, color: paletteColor(0), title: `${groupName(g)}: ${usd(g.ghost_tax_usd)}` }],
  }));
  return [
    figure('Cancel acknowledgement latency', histogram('cancel-latency', 'time from Stop to acknowledgement', report.distributions.cancel_ack_ms)),
    figure('Cancel settle latency', histogram('cancel-settle', 'time from Stop to settle', report.distributions.cancel_settle_ms)),
    figure(
      `Ghost tax per ${report.timeline.unit} (UTC)`,
      timelineChart(report, 'ghost-tax-over-time', 'Ghost tax in USD over time, stacked by service', (p) => p.ghost_tax_usd, usd, false),
    ),
    figure(
      `Tokens after Stop per ${report.timeline.unit} (UTC)`,
      timelineChart(report, 'tokens-over-time', 'Tokens after Stop (input and output) over time, stacked by service', (p) => tokens(p.tokens_after_stop), int, true),
    ),
    figure('Ghost tax by service / agent / framework', barChart({ name: 'ghost-tax-by-service', label: 'Ghost tax in USD per service, agent and framework', bars: groups, format: usd })),
    figure('Ghost commits by tool', ghostCommitsByTool(report)),
    figure(`Cancel depth by framework (${int(t.cancelled_runs)} cancelled runs)`, cancelDepth(t.cancel_depth_by_framework)),
  ].join('\n');
}

function meta(report: LeakReport, generatedAt: Date): string {
  const w = report.window;
  const i = report.input;
  const items: [string, string][] = [
    ['window', `${w.from ?? 'the beginning'} → ${w.to ?? 'now'}`],
    ['generated', generatedAt.toISOString()],
    ['prices', `${report.prices.source}${report.prices.as_of ? ` (table as of ${report.prices.as_of})` : ''}`],
    ['read', i.paths.length === 0 ? 'nothing named' : i.paths.join(', ')],
    ['input', `${int(i.files)} files (${int(i.files_read)} read now), ${int(i.spans_read)} spans read (${int(i.spans_added)} new), ${int(i.spans_in_store)} in the store, ${int(i.skipped_count)} lines skipped`],
  ];
  return `<dl class="meta">${items.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl>`;
}

/** A table; cells are markup (escaped by the caller); `num` marks right-aligned columns. */
function table(className: string, head: string[], rows: string[][], num: ReadonlySet<number>): string {
  if (rows.length === 0) return '<p class="empty">nothing in this window</p>';
  const cell = (tag: string, c: string, i: number): string => `<${tag}${num.has(i) ? ' class="num"' : ''}>${c}</${tag}>`;
  const thead = `<tr>${head.map((h, i) => cell('th', escapeHtml(h), i)).join('')}</tr>`;
  const tbody = rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table class="${className}"><thead>${thead}</thead><tbody>\n${tbody}\n</tbody></table></div>`;
}

const range = (from: number, to: number): Set<number> => new Set(Array.from({ length: to - from + 1 }, (_, i) => from + i));

function groupsTable(groups: GroupFigures[]): string {
  const head = ['service', 'agent', 'framework', 'runs', 'cancelled', 'ghost commits', 'orphans', 'tokens after Stop', 'ghost tax', 'ack p95', 'depth 0', '1', '2', '3', '4'];
  const rows = groups.map((g) => [
    text(serviceName(g.service)),
    text(g.agent),
    text(g.framework),
    int(g.runs),
    int(g.cancelled_runs),
    int(g.ghost_commits),
    int(g.orphan_tool_calls),
    int(tokens(g.tokens_after_stop)),
    usd(g.ghost_tax_usd),
    ms(g.cancel_ack_ms.p95),
    ...DEPTHS.map((d) => int(g.cancel_depth[d])),
  ]);
  return table('groups', head, rows, range(3, head.length - 1));
}

function modelsTable(report: LeakReport): string {
  const rows = report.totals.tokens_after_stop_by_model.map((m) => [text(m.model), int(m.input), int(m.output), usd(m.ghost_tax_usd), m.priced ? 'yes' : '<strong>no price</strong>']);
  return table('models', ['model', 'input tokens', 'output tokens', 'ghost tax', 'priced'], rows, range(1, 3));
}

/** afterstop's own text with its `code` spans, escaped. */
const withCode = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The findings by kind (remedies.ts): each kind with its count and remedy, then its rows, numbered as the report numbers them. */
function findingsByKind(report: LeakReport, traceUrl: string | undefined): string {
  const traceCell = (traceId: string, runId: string): string => {
    const href = traceUrl === undefined ? undefined : traceHref(traceUrl, traceId, runId);
    const id = `<code>${escapeHtml(traceId)}</code>`;
    return href === undefined ? id : `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${id}</a>`;
  };
  const timelines = report.timelines ?? [];
  const timelineCell = (f: Finding): string => {
    const i = timelineOf(timelines, f);
    return i < 0 ? NONE : `<a href="#${timelineAnchor(i)}">timeline</a>`;
  };
  const groups = findingGroups(report);
  if (groups.length === 0) return `<p class="empty">${escapeHtml(noFindings(report))}</p>`;
  return groups
    .map((g) => {
      const rows = g.rows.map(({ number, finding: f }) => [
        int(number),
        `<span class="sev sev-${Math.min(3, Math.max(1, Math.round(f.severity)))}">${int(f.severity)}</span>`,
        `<time>${escapeHtml(f.time)}</time>`,
        text(f.tool),
        text(f.detail),
        traceCell(f.trace_id, f.run_id),
        `<code>${escapeHtml(f.run_id)}</code>`,
        timelineCell(f),
      ]);
      const head = `<h3><code>${escapeHtml(g.kind)}</code> × ${int(g.count)}</h3><p class="remedy"><strong>Remedy:</strong> ${withCode(g.remedy)}</p>`;
      return `<div class="kind" data-kind="${escapeHtml(g.kind)}">${head}${table('findings', ['#', 'severity', 'time', 'tool', 'detail', 'trace id', 'run id', 'timeline'], rows, new Set([0, 1]))}</div>`;
    })
    .join('\n');
}

/** The runs of the worst findings, drawn (report.timelines); each with the findings that point at it. */
function timelinesSection(report: LeakReport): string {
  const timelines = report.timelines;
  if (timelines === undefined) return '';
  const numbered = report.findings.map((finding, i) => ({ number: i + 1, finding }));
  const figures = timelines.map((t, i) =>
    timelineFigure(
      t,
      i,
      numbered.filter(({ finding }) => timelineOf(timelines, finding) === i),
    ),
  );
  const undrawn = numbered.filter(({ finding }) => timelineOf(timelines, finding) < 0).length;
  const rest = undrawn === 0 ? '' : `<p class="muted-line">${int(undrawn)} finding(s) point at runs not drawn here: <code>afterstop explain N</code> draws finding N (over the same store and window).</p>`;
  const body = timelines.length === 0 ? '<p class="empty">no finding to draw</p>' : figures.join('\n');
  return `<section><h2>What happened after Stop: the worst findings' runs (${int(timelines.length)})</h2>\n${body}\n${rest}</section>`;
}

const SKIPPED_SHOWN = 100;

function skipped(report: LeakReport): string {
  const { skipped: lines, skipped_count: count } = report.input;
  if (count === 0 && lines.length === 0) return '';
  const shown = lines.slice(0, SKIPPED_SHOWN);
  const items = shown.map((s) => `<li><code>${escapeHtml(skippedPlace(s))}</code> ${escapeHtml(s.reason)}</li>`);
  const more = count > shown.length ? `<p>… and ${int(count - shown.length)} more (see <code>input.skipped</code> in the JSON report).</p>` : '';
  return `<section><h2>Skipped input lines (${int(count)})</h2><ul class="skipped">${items.join('\n')}</ul>${more}</section>`;
}

/** The report's look. */
const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-alt: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 24px; max-width: 1200px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
dl { margin: 0; display: flex; flex-wrap: wrap; gap: 4px 24px; color: var(--muted); } dl div { display: flex; gap: 6px; } dt::after { content: ":"; } dd { margin: 0; color: var(--fg); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 16px; align-items: start; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; break-inside: avoid; } figcaption { font-weight: 600; margin-bottom: 6px; }
svg.chart { display: block; height: auto; } svg text { font: 11px system-ui, sans-serif; fill: var(--fg); } svg .tick { fill: var(--muted); } svg .label { font-size: 10.5px; }
svg .grid { stroke: #eaeef2; } svg .axis { stroke: #8c959f; }
.chart-empty, .empty { color: var(--muted); font-style: italic; margin: 8px 0; } .muted { color: var(--muted); font-size: 12px; margin-top: 32px; } .lower-bound { border-left: 4px solid #b45309; padding: 8px 12px; margin: 12px 0; }
.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px; vertical-align: baseline; }
.swatch, svg rect { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; } th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-alt); font-weight: 600; } .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td { overflow-wrap: break-word; } .findings td:nth-child(3) { white-space: nowrap; }
.nothing { margin: 12px 0; padding: 10px 14px; border: 2px solid #bf8700; border-radius: 6px; background: #fff8c5; color: #3b2300; }
.sev { display: inline-block; min-width: 1.6em; text-align: center; border-radius: 3px; font-weight: 600; }
.sev-1 { background: #ffebe9; color: #a40e26; } .sev-2 { background: #fff8c5; color: #7d4e00; } .sev-3 { background: var(--bg-alt); color: var(--muted); }
a { color: #0969da; }
${FIGURES_STYLE}${TIMELINE_STYLE}${TIMELINE_HTML_STYLE}
@media print { body { padding: 0; max-width: none; } .charts { grid-template-columns: 1fr 1fr; } .scroll { overflow: visible; } tr { break-inside: avoid; } }
`;

/** The start of a page in the report's style, up to its open body: no script, nothing from the network. */
export function pageStart(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(shorten(title, 120))}</title>
<style>${STYLE}</style>
</head>
<body>`;
}

/** The figures as lower bounds, naming the frameworks afterstop does not instrument (summary.ts), before anything else. */
function lowerBoundNote(report: LeakReport): string {
  const bound = lowerBound(report);
  return bound === undefined ? '' : `<p class="lower-bound" role="note" data-figure="uninstrumented"><strong>${escapeHtml(bound)}</strong></p>`;
}

/**
 * Render the leak report as one self-contained HTML5 page: the verdict, the figures
 * that need attention then the others, SVG charts, the groups table, the findings
 * by kind with their remedies, the runs drawn and the skipped input lines.
 * Throws an Error when `options.traceUrl` is not an http: or https: URL.
 */
export function renderHtml(report: LeakReport, options: HtmlOptions = {}): string {
  if (options.traceUrl !== undefined) checkTraceUrl(options.traceUrl);
  const generatedAt = options.generatedAt ?? new Date();
  const budgets = options.budgets ?? [];
  const title = `afterstop leak report${report.window.from || report.window.to ? `, ${report.window.from ?? '…'} to ${report.window.to ?? 'now'}` : ''}`;
  return `${pageStart(title)}
<header>
<h1>What the agents did after Stop</h1>
${verdictBanner(report, budgets)}
${meta(report, generatedAt)}
${lowerBoundNote(report)}
</header>
${figureSections(report, budgets)}
<section><h2>Charts</h2>
<div class="charts">
${charts(report)}
</div>
</section>
<section><h2>By service, agent and framework</h2>
${groupsTable(report.groups)}
</section>
<section><h2>Tokens after Stop by model</h2>
${modelsTable(report)}
</section>
<section><h2>Findings by kind (${int(report.findings.length)}), each with its remedy</h2>
${findingsByKind(report, options.traceUrl)}
</section>
${timelinesSection(report)}
${skipped(report)}
<footer><p class="muted">Report schema ${escapeHtml(report.schema)}. Generated by afterstop; this page runs no script and loads nothing.</p></footer>
</body>
</html>
`;
}
