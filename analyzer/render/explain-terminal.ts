import type { Explanation } from '../types.js';
import { terminalSafe } from './text-table.js';
import { painter, timelineLines, type TimelineTextOptions } from './timeline-text.js';

/** `afterstop explain` for a terminal: the finding, then each run drawn against its Stop with its figures. */
export function renderExplainTerminal(e: Explanation, options: TimelineTextOptions): string {
  const paint = painter(options.color);
  const out: string[] = [];
  if (e.finding !== null) {
    const f = e.finding;
    out.push(paint('bold', `Finding: ${terminalSafe(f.kind)} (severity ${f.severity})`), terminalSafe(f.detail), '');
  }
  e.timelines.forEach((t, i) => {
    if (i > 0) out.push('', '─'.repeat(Math.min(options.width ?? 100, 100)), '');
    out.push(...timelineLines(t, options));
  });
  if (e.runs_not_drawn > 0) out.push('', `${e.runs_not_drawn} more run(s) match and are not drawn: name one by its key (trace id:run id).`);
  return `${out.join('\n')}\n`;
}
