import type { LeakReport, ReportEvidence } from './types.js';

/** Where a skipped input is: `file:line`, or the file alone (line 0: the whole file or folder could not be read). */
export const skippedPlace = (s: { file: string; line: number }): string => (s.line > 0 ? `${s.file}:${s.line}` : s.file);

/** The skipped lines named in a note: the first few, the rest counted. */
const NOTE_SKIPPED = 3;

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The inputs, as the note names them (at most a few, the rest counted). */
function named(paths: readonly string[]): string {
  if (paths.length === 0) return 'no input';
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/**
 * What the report had to judge (an afterstop addition to METRICS.md): runs, or nothing — no span at all
 * (`no_spans`: no trace file at the paths, or none of their lines a span), or spans but no agent run
 * starting in the window (`no_runs`). Nothing read is not nothing found: every format says the note first,
 * and budgets are not passed on it (the CLI's own exit code). Written once here, for every source.
 */
export function reportEvidence(input: LeakReport['input'], runs: number, window: LeakReport['window'], source: 'files' | 'clickhouse' = 'files'): ReportEvidence {
  if (runs > 0) return { status: 'runs', note: null };
  // ClickHouse's input.paths names its table (never the URL's credentials); files are counted.
  const read = source === 'clickhouse' ? `read from ${named(input.paths)}` : `${plural(input.files, 'trace file')} at ${named(input.paths)}`;
  const skipped = input.skipped.slice(0, NOTE_SKIPPED).map((s) => `${skippedPlace(s)}: ${s.reason}`);
  const skippedText = input.skipped_count === 0 ? '' : `; ${plural(input.skipped_count, 'line')} skipped (${skipped.join('; ')}${input.skipped_count > skipped.length ? '; …' : ''})`;
  const notClear = 'No figure of this report is an all-clear.';
  if (input.spans_in_store === 0) {
    return { status: 'no_spans', note: `Nothing read: ${read}, no span in the store${skippedText}. ${notClear}` };
  }
  if (window.from === null && window.to === null) {
    return {
      status: 'no_runs',
      note:
        `No agent run: ${read}, ${plural(input.spans_in_store, 'span')} in the store, none of them part of a run afterstop recognises ` +
        `(afterstop's run spans, or an agent framework's GenAI spans)${skippedText}. ${notClear}`,
    };
  }
  return {
    status: 'no_runs',
    note:
      `No agent run starts in the window (${window.from ?? 'the beginning'} to ${window.to ?? 'now'}): ${read}, ` +
      `${plural(input.spans_in_store, 'span')} in the store, of runs outside the window or of none${skippedText}. ${notClear}`,
  };
}

/**
 * The runs stamped in the future, in one sentence (null when there is none): how many, from when, the
 * earliest named by trace, run and start. Said by every text format and on stderr.
 */
export function futureRunsNote(report: Pick<LeakReport, 'evidence'>): string | null {
  const future = report.evidence.future_runs;
  if (future === undefined || future === null) return null;
  const [first] = future.examples;
  const example = first === undefined ? '' : `, e.g. trace ${first.trace_id} run ${first.run_id} at ${first.start}`;
  return `${plural(future.runs, 'run')} stamped in the future (starting after ${future.from}: clock skew or bad data), left out of the window${example}; afterstop prune removes them`;
}
