/**
 * A run's timeline as the rows every format draws (terminal, Markdown, SVG):
 * one per model call, tool call, commit and marker, in time order, each
 * labelled once here so that the formats say the same thing. The rows word
 * what the report concluded (ghosts, orphans, tokens after Stop); they add
 * only where an item lies against the Stop.
 */
import {
  SPAN_CANCEL_ACK,
  SPAN_CANCEL_REQUEST,
  SPAN_CANCEL_SETTLE,
  SPAN_HISTORY_REPAIR,
  SPAN_MCP_CANCEL,
  SPAN_MCP_CANCEL_RECEIVED,
  SPAN_PROCESS_ORPHAN,
  SPAN_STEER_DROP,
  SPAN_STEER_ENQUEUE,
  SPAN_STEER_INJECT,
  SPAN_TOOL_COMMIT_PREVENTED,
  SPAN_TOOL_COMPENSATE,
} from '@afterstop/span-contract';
import { int, usd } from './format.js';
import { ghostTax } from './summary.js';
import { shorten } from './svg-chart.js';
import type { RunTimeline, TimelineItem } from '../types.js';

export interface TimelineRow {
  /** The item drawn (null: the inferred Stop, which no span marks). */
  item: TimelineItem | null;
  start_ms: number;
  /** A bar's end; null for an instant, or a call that never ended (drawn to the axis' end). */
  end_ms: number | null;
  /** Drawn as a bar (model and tool calls) or an instant (commits, markers). */
  shape: 'bar' | 'instant';
  /** Never ended: the bar runs to the end of the axis. */
  open: boolean;
  label: string;
  /** What the report concluded of it, after the label (`← ghost`, `orphan`), or ''. */
  note: string;
  /** Worth an alarm: a ghost, work or tokens after Stop, an orphan, an error. */
  alarm: boolean;
  /** What was inferred rather than recorded (a foreign trace's Stop or ghost). */
  inferred: boolean;
  /** The Stop, the acknowledgement or the settle: drawn across every lane. */
  line: 'stop' | 'ack' | 'settle' | null;
}

const MARKERS: Record<string, string> = {
  [SPAN_CANCEL_REQUEST]: 'Stop',
  [SPAN_CANCEL_ACK]: 'ack',
  [SPAN_CANCEL_SETTLE]: 'settle',
  [SPAN_HISTORY_REPAIR]: 'history repair',
  [SPAN_STEER_ENQUEUE]: 'steering message queued',
  [SPAN_STEER_INJECT]: 'steering message injected',
  [SPAN_STEER_DROP]: 'steering message dropped',
  [SPAN_TOOL_COMPENSATE]: 'compensation',
  [SPAN_PROCESS_ORPHAN]: 'child process outlived its run',
  [SPAN_TOOL_COMMIT_PREVENTED]: 'commit prevented by the guard (nothing sent)',
  [SPAN_MCP_CANCEL]: 'cancel sent to the MCP server',
  [SPAN_MCP_CANCEL_RECEIVED]: 'the MCP server received the cancel',
};
const LINES: Record<string, TimelineRow['line']> = {
  [SPAN_CANCEL_REQUEST]: 'stop',
  [SPAN_CANCEL_ACK]: 'ack',
  [SPAN_CANCEL_SETTLE]: 'settle',
};

const ms = (value: number): string => `${int(value)} ms`;
const effectOf = (effect: string | null): string => ` (${effect ?? 'unknown'})`;

/** At most this many characters of a trace's text (an error message, a stack) are shown in a row or a figure. */
export const MAX_TEXT_CHARS = 300;

function row(item: TimelineItem, t: RunTimeline, next: boolean): TimelineRow {
  const base = { item, start_ms: item.start_ms, end_ms: null, shape: 'instant' as const, open: false, alarm: false, inferred: false, line: null };
  // A next run's offsets count from the Stop before it: its own Stop, if any, is not that one.
  const afterStop = !next && t.cancelled && item.start_ms >= 0;
  switch (item.kind) {
    case 'model_call': {
      const notes: string[] = [];
      if (item.started_after_stop && !next) notes.push('started after Stop');
      if (item.after_stop !== null && (item.after_stop.input + item.after_stop.output > 0 || item.after_stop.how === 'unknown')) {
        const a = item.after_stop;
        notes.push(a.how === 'unknown' ? 'tokens after Stop unknown (no usage)' : `${int(a.input + a.output)} tokens after Stop (${a.how}${a.priced ? `, ${usd(a.cost_usd)}` : ', no price'})`);
      }
      if (item.cancelled) notes.push('cancelled');
      else if (item.status === 'error') notes.push('error');
      return { ...base, shape: 'bar', end_ms: item.end_ms, label: item.model ?? item.name, note: notes.join(', '), alarm: notes.length > 0 && !item.cancelled };
    }
    case 'tool_call': {
      const notes: string[] = [];
      if (item.end_ms === null) notes.push('never ended');
      if (item.ghost === 'possible') notes.push('← possible ghost: in flight at Stop, outcome not seen');
      if (item.ghost === 'inferred') notes.push('← ghost (inferred: ended after Stop without error)');
      if (item.outcome === 'lost') notes.push('orphan: no result in the conversation');
      if (item.outcome === 'repaired') notes.push('result lost, repaired');
      if (item.result !== null && item.result !== 'delivered') notes.push(`result ${item.result}`);
      if (item.status === 'error') notes.push('error');
      // (A timeline read back from an older report's JSON has no mcp.)
      const m = item.mcp ?? null;
      const server = m?.side === 'server';
      if (m?.cancel_via === 'none') notes.push('Stop did not cross to the MCP server');
      if (m?.handler === 'finished_after_cancel') notes.push('handler finished after the cancel');
      if (m?.handler === 'stopped') notes.push('handler stopped on the cancel');
      // The server's side of a call began when its request arrived, which may be after Stop: not the loop going on.
      if (afterStop && item.tool_kind !== 'compensate' && !server) notes.unshift('started after Stop');
      const kind = item.tool_kind === 'step' ? ' step' : item.tool_kind === 'compensate' ? ' compensation' : '';
      const mcp = m === null ? '' : server ? ` on MCP server ${m.server ?? '(unnamed)'}` : ` via MCP${m.server === null ? '' : ` (${m.server})`}`;
      return {
        ...base,
        shape: 'bar',
        end_ms: item.end_ms,
        open: item.end_ms === null,
        label: `${item.tool ?? '(unnamed tool)'}${kind}${mcp}${effectOf(item.effect)}`,
        note: notes.join(', '),
        alarm: item.ghost !== null || item.outcome === 'lost' || (afterStop && item.tool_kind !== 'compensate' && !server) || m?.cancel_via === 'none' || m?.handler === 'finished_after_cancel',
        inferred: item.ghost === 'inferred' || !item.recorded,
      };
    }
    case 'commit': {
      const note =
        item.ghost === 'known'
          ? `← ghost${item.compensated ? ', compensated' : ''}`
          : item.ghost === 'possible'
            ? `← possible ghost: request reached the service${item.sent_ms === null ? '' : ` at ${signedMs(item.sent_ms)}`}, its answer was lost${item.compensated ? '; compensated' : ''}`
            : '';
      const evidence = item.evidence === null ? '' : `, ${item.evidence}`;
      return { ...base, label: `${item.tool ?? '(unnamed tool)'} COMMIT (${item.effect ?? 'unknown'}${evidence})`, note, alarm: item.ghost !== null };
    }
    case 'service_span':
      // (issue 49: the drawing of a service's spans is the timeline's own work; until then, a plain bar.)
      return { ...base, shape: 'bar', end_ms: item.end_ms, label: `${item.service ?? 'service'}: ${item.name}`, note: item.status === 'error' ? 'error' : '' };
    case 'marker': {
      const label = MARKERS[item.name] ?? item.name.replace(/^afterstop\./, '');
      return { ...base, label, note: '', alarm: item.name === SPAN_PROCESS_ORPHAN, line: LINES[item.name] ?? null };
    }
  }
}

/** An offset from Stop: `-412 ms`, `+0 ms`, `+1,204 ms`. */
export function signedMs(value: number): string {
  const rounded = Math.round(value);
  return `${rounded < 0 ? '-' : '+'}${ms(Math.abs(rounded))}`;
}

/** The rows of a timeline (`next`: drawn as the next run of another's Stop), in time order; an inferred Stop gets a row of its own at 0. */
export function timelineRows(t: RunTimeline, next = false): TimelineRow[] {
  const rows = t.items.map((item) => row(item, t, next));
  if (t.cancelled && !next && !rows.some((r) => r.line === 'stop')) {
    rows.push({
      item: null,
      start_ms: 0,
      end_ms: null,
      shape: 'instant',
      open: false,
      label: t.cancel_inferred ? 'Stop (inferred: the first span to end with an abort or cancel)' : 'Stop (the run ended cancelled)',
      note: '',
      alarm: false,
      inferred: t.cancel_inferred,
      line: 'stop',
    });
  }
  return rows.sort((a, b) => a.start_ms - b.start_ms || (a.line === 'stop' ? -1 : b.line === 'stop' ? 1 : 0));
}

/**
 * At most `max` rows, in time order, and how many were left out: the first Stop, ack and settle, then what
 * the report flags (ghosts, orphans, work after Stop), then the rows nearest the Stop.
 */
export function pickRows(rows: readonly TimelineRow[], max: number): { shown: TimelineRow[]; left: number } {
  if (rows.length <= max) return { shown: [...rows], left: 0 };
  const firstLines = new Set<TimelineRow>();
  for (const line of ['stop', 'ack', 'settle'] as const) {
    const first = rows.find((r) => r.line === line);
    if (first !== undefined) firstLines.add(first);
  }
  const rank = (r: TimelineRow): number => (firstLines.has(r) ? 0 : r.alarm ? 1 : 2);
  const chosen = new Set([...rows].sort((a, b) => rank(a) - rank(b) || Math.abs(a.start_ms) - Math.abs(b.start_ms)).slice(0, max));
  return { shown: rows.filter((r) => chosen.has(r)), left: rows.length - chosen.size };
}

/** The span of time a run's chart draws: the run and its items, with 0 (Stop) in it when it was cancelled. */
export function timeRange(t: RunTimeline): { from: number; to: number } {
  // A loop, not Math.min(...times): a run of a hundred thousand items would pass too many arguments.
  let from = t.cancelled ? Math.min(0, t.start_ms) : t.start_ms;
  let to = t.cancelled ? Math.max(0, t.start_ms) : t.start_ms;
  const see = (ms: number): void => {
    if (ms < from) from = ms;
    if (ms > to) to = ms;
  };
  if (t.end_ms !== null) see(t.end_ms);
  for (const i of t.items) {
    see(i.start_ms);
    if ((i.kind === 'model_call' || i.kind === 'tool_call') && i.end_ms !== null) see(i.end_ms);
    if (i.kind === 'commit' && i.sent_ms !== null) see(i.sent_ms);
  }
  if (to - from < 1) to = from + 1;
  // A little room at the end for a call that never ended.
  if (t.end_ms === null || t.items.some((i) => i.kind === 'tool_call' && i.end_ms === null)) to += (to - from) * 0.05;
  return { from, to };
}

/** What a run is, in one line: its group, conversation and Stop. */
export function runTitle(t: RunTimeline): string {
  const group = `${t.service ?? '(no service)'} / ${t.agent ?? '–'} / ${t.framework ?? '–'}`;
  const conversation = t.conversation_id === null ? '' : ` · conversation ${t.conversation_id}`;
  const stop = t.cancelled ? ` · Stop${t.cancel_inferred ? ' (inferred)' : ''} at ${t.origin}` : ` · not cancelled, started ${t.origin}`;
  return `${group}${conversation}${stop}`;
}

/** The run's figures (METRICS.md), as label and value lines, shared by the text formats and the page. */
export function figureLines(t: RunTimeline): [string, string][] {
  const f = t.figures;
  // First: what is drawn is a lower bound when frameworks afterstop does not instrument ran beside the run.
  const bound: [string, string][] =
    t.uninstrumented.length === 0
      ? []
      : [['lower bound', `beside ${t.uninstrumented.join(', ')}, which afterstop does not instrument: what ${t.uninstrumented.length === 1 ? 'it' : 'they'} did may be missing from this run`]];
  if (!t.cancelled) {
    return [...bound, ['cancelled', 'no'], ['outcome', t.outcome ?? (t.end_ms === null ? 'never ended' : '–')]];
  }
  const lines: [string, string][] = [...bound];
  lines.push(['cancel depth', f.cancel_depth === null ? '–' : `${f.cancel_depth} of 4${f.cancel_depth_reason === null ? ': Stop stopped everything' : `: ${f.cancel_depth_reason}`}`]);
  lines.push(['ack / settle', `${f.cancel_ack_ms === null ? 'never acknowledged' : ms(f.cancel_ack_ms)} / ${f.cancel_settle_ms === null ? '–' : ms(f.cancel_settle_ms)}`]);
  const g = f.ghost_commits;
  lines.push(['ghost commits', `${int(g.known)} known, ${int(g.possible)} possible, ${int(g.inferred)} inferred${g.compensated > 0 ? ` (${int(g.compensated)} compensated)` : ''}`]);
  const o = f.orphan_tool_calls;
  const why = [
    o.requested_never_run > 0 ? `${int(o.requested_never_run)} requested by the model and never run` : '',
    o.never_ended > 0 ? `${int(o.never_ended)} never ended` : '',
    o.result_lost > 0 ? `${int(o.result_lost)} ended without their result reaching the conversation (late, dropped, cancelled, or after the ack)` : '',
  ].filter(Boolean);
  lines.push(['orphan tool calls', `${int(o.orphans)}${why.length > 0 ? `: ${why.join('; ')}` : ''}; ${int(o.repaired)} repaired, ${int(o.late_results)} late results`]);
  const k = f.tokens_after_stop;
  const how = [`${int(k.observed_calls)} call(s) observed`, `${int(k.estimated_calls)} estimated`, `${int(k.calls_without_usage)} without usage`].join(', ');
  lines.push(['tokens after Stop', `${int(k.input)} input, ${int(k.output)} output (${how}); ${ghostTax(k.ghost_tax_usd, k)}; ${int(k.calls_started_after_stop)} model call(s) started after Stop`]);
  const e = f.post_cancel_error;
  lines.push(['post-cancel error', e === null ? 'none' : `the next run ${e.run_id} failed at ${e.time}: ${e.cause}: ${shorten(e.text, MAX_TEXT_CHARS)}`]);
  return lines;
}
