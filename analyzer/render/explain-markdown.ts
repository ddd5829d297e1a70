import type { Explanation } from '../types.js';
import { markdownCell } from './markdown.js';
import { chartLines, LABEL_ROOM, LEGEND, painter } from './timeline-text.js';
import { figureLines, runTitle } from './timeline-rows.js';

/** The chart's line width in Markdown: bars 60 wide. */
const WIDTH = 60 + LABEL_ROOM + 14;

/** `afterstop explain` as Markdown, for a ticket: each chart in a code fence no trace text can close, the figures as a table. */
export function renderExplainMarkdown(e: Explanation): string {
  const out: string[] = [];
  if (e.finding !== null) out.push(`## Finding: ${markdownCell(e.finding.kind)} (severity ${e.finding.severity})`, '', markdownCell(e.finding.detail), '');
  const plain = painter(false);
  for (const t of e.timelines) {
    out.push(`### Run ${markdownCell(t.run_id)} of trace ${markdownCell(t.trace_id)}`, '', `_${markdownCell(runTitle(t))}_`, '');
    const chart = chartLines(t, false, WIDTH, plain);
    if (t.next_run !== null) chart.push('', `next run of the conversation: ${t.next_run.run_id}`, ...chartLines(t.next_run, true, WIDTH, plain));
    // Chart lines are terminalSafe already; a fence longer than any run of backticks in them cannot be closed by them.
    let longest = 2;
    for (const l of chart) for (const m of l.match(/`+/g) ?? []) longest = Math.max(longest, m.length);
    const fence = '`'.repeat(longest + 1);
    out.push(`${fence}text`, ...chart, fence, '', `${LEGEND}; offsets from Stop`, '');
    out.push('| figure | value |', '| --- | --- |', ...figureLines(t).map(([k, v]) => `| ${markdownCell(k)} | ${markdownCell(v)} |`), '');
  }
  if (e.runs_not_drawn > 0) out.push(`${e.runs_not_drawn} more run(s) match and are not drawn.`, '');
  return out.join('\n');
}
