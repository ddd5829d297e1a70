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
import type { RunTimeline, TimelineCommit, TimelineItem, TimelineServiceSpan } from '../types.js';

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
  /** A commit's interval (issue 49) when it is not a point: from its earliest to its latest time, `to` null when no end is known. */
  interval: { from: number; to: number | null } | null;
  /** A span of the service a tool call's request reached, drawn under the call on the agent's clock (its times mapped, approximate). */
  service: boolean;
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
/** A tool's effect class; `effect unknown` when none was declared (the tool is known, what it does is not). */
const effectWords = (effect: string | null): string => (effect === null || effect === 'unknown' ? 'effect unknown' : effect);
const effectOf = (effect: string | null): string => ` (${effectWords(effect)})`;

/** At most this many characters of a service's name in a lane's label (the whole is in the JSON). */
const MAX_SERVICE_CHARS = 24;

/** At most this many characters of a trace's text (an error message, a stack) are shown in a row or a figure. */
export const MAX_TEXT_CHARS = 300;

function row(item: TimelineItem, t: RunTimeline, next: boolean): TimelineRow {
  const base = { item, start_ms: item.start_ms, end_ms: null, shape: 'instant' as const, open: false, alarm: false, inferred: false, line: null, interval: null, service: false };
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
      const evidence = item.evidence === null ? '' : `, ${item.evidence}`;
      return { ...base, label: `${item.tool ?? '(unnamed tool)'} COMMIT (${effectWords(item.effect)}${evidence})`, note: commitNote(item, t, next), alarm: item.ghost !== null, interval: intervalOf(item) };
    }
    case 'service_span':
      return serviceRow(item, base, t, next);
    case 'marker': {
      const label = MARKERS[item.name] ?? item.name.replace(/^afterstop\./, '');
      return { ...base, label, note: '', alarm: item.name === SPAN_PROCESS_ORPHAN, line: LINES[item.name] ?? null };
    }
  }
}

/** A commit's interval when it is one (a timeline read back from an older report has none: its point). */
function intervalOf(c: TimelineCommit): TimelineRow['interval'] {
  if (typeof c.earliest_ms !== 'number' || c.latest_ms === undefined) return null;
  if (c.latest_ms !== null && Math.abs(c.latest_ms - c.earliest_ms) < 1e-9) return null;
  return { from: c.earliest_ms, to: c.latest_ms };
}

/** A time against the Stop of a cancelled run (`312 ms after Stop`), else its offset (`at +312 ms`). */
function againstStop(value: number, stopped: boolean): string {
  if (!stopped) return `at ${signedMs(value)}`;
  const rounded = Math.round(value);
  return rounded === 0 ? 'at Stop' : `${ms(Math.abs(rounded))} ${rounded < 0 ? 'before' : 'after'} Stop`;
}

/** `± 4 ms` (the clock bound's half-width), or what stands for it when the bound has no width. */
function plusMinus(c: Pick<TimelineCommit, 'clock_bound_ms' | 'witness_uncertainty_ms'>): string {
  if (typeof c.witness_uncertainty_ms === 'number') return ` ± ${ms(c.witness_uncertainty_ms)}`;
  const b = c.clock_bound_ms ?? null;
  if (b === null) return ' (its clock not bounded against the agent’s)';
  return ' or later (no answered request bounds its clock from above)';
}

/** What the report concluded of a commit, its interval and who witnessed it, in words. */
function commitNote(c: TimelineCommit, t: RunTimeline, next: boolean): string {
  const stopped = t.cancelled && !next;
  const witness = c.witness ?? null;
  const verdict = c.witness_verdict ?? null;
  const service = c.witness_service ?? null;
  const span = c.witness_span ?? null;
  const end = c.witness_end_ms ?? null;
  const who = service ?? (witness === 'mcp_server' ? 'the MCP server' : 'the service');
  const interval = intervalOf(c);
  const between = interval === null ? '' : interval.to === null ? `from ${signedMs(interval.from)} on, no end known` : `between ${signedMs(interval.from)} and ${signedMs(interval.to)}`;
  // A response whose round trip holds the Stop (an open interval is a lost answer's: worded as it was).
  const across = stopped && interval !== null && interval.to !== null && interval.from < 0 && interval.to > 0;
  const compensated = c.compensated ? ', compensated' : '';
  // Who witnessed it: the span that decided, when drawn, and when it ended against the Stop.
  const said =
    witness === null
      ? ''
      : verdict === 'failed'
        ? `${who}${span === null ? '' : `: ${span}`} failed: nothing committed`
        : verdict === 'received'
          ? `${who} received the request${end === null ? '' : ` (${span ?? 'its entry span'} ended ${againstStop(end, stopped)}${plusMinus(c)})`}, no work span seen`
          : `confirmed by ${who}${span !== null && end !== null ? `: ${span} ended ${againstStop(end, stopped)}${plusMinus(c)}` : ''}`;
  if (c.ghost === 'known') return `← ghost${compensated}${said === '' ? '' : `, ${said}`}${between === '' ? '' : ` (${between})`}`;
  if (c.ghost === 'possible') {
    const where = across
      ? `committed ${between}, across Stop${said === '' ? '' : `; ${said}`}`
      : `request reached the service${c.sent_ms === null ? '' : ` at ${signedMs(c.sent_ms)}`}, its answer was lost${said === '' ? '' : `; ${said}`}`;
    return `← possible ghost: ${where}${c.compensated ? '; compensated' : ''}`;
  }
  const parts = [between, said].filter((p) => p !== '');
  if (stopped && verdict === 'failed') return `no ghost: ${parts.join('; ')}`;
  return parts.join('; ');
}

/** How a service span's times are known: mapped from its clock through the bound. */
function clockNote(s: TimelineServiceSpan): string {
  const b = s.clock_bound_ms ?? null;
  if (b === null) return 'its own clock, not bounded against the agent’s';
  if (b.min === null || b.max === null) return '≈ at the earliest its clock bound allows';
  return `≈ ± ${ms(Math.abs(b.max - b.min) / 2)} (clock bound)`;
}

/** A span of the far side: `↳ billing-api: INSERT orders (postgresql)`, under its tool call. */
function serviceRow(s: TimelineServiceSpan, base: Omit<TimelineRow, 'label' | 'note'>, t: RunTimeline, next: boolean): TimelineRow {
  const notes: string[] = [];
  if (s.entry) notes.push('request received');
  if (s.work) notes.push('work');
  if (s.status === 'error') notes.push('failed');
  notes.push(clockNote(s));
  const after = t.cancelled && !next && s.work && s.status !== 'error' && s.end_ms > 0;
  return {
    ...base,
    shape: 'bar',
    end_ms: s.end_ms,
    // The service's name cut short, so that a long one does not hide which of its spans the lane is.
    label: `↳ ${shorten(s.service ?? '(unnamed service)', MAX_SERVICE_CHARS)}: ${s.name}${s.system === null ? '' : ` (${s.system})`}`,
    note: notes.join(', '),
    alarm: after,
    inferred: true,
    service: true,
  };
}

/** The rows of service spans moved under their tool call's row (by its span, else its call id), in time order there; the rest stay in time order. */
function underTheirCalls(rows: TimelineRow[]): TimelineRow[] {
  const calls = new Map<string, TimelineRow>();
  for (const r of rows) {
    if (r.item?.kind !== 'tool_call') continue;
    calls.set(`span:${r.item.span_id}`, r);
    if (r.item.call_id !== null && !calls.has(`call:${r.item.call_id}`)) calls.set(`call:${r.item.call_id}`, r);
  }
  const under = new Map<TimelineRow, TimelineRow[]>();
  const placed = new Set<TimelineRow>();
  for (const r of rows) {
    if (r.item?.kind !== 'service_span') continue;
    const s = r.item;
    const call = (s.tool_span_id === null ? undefined : calls.get(`span:${s.tool_span_id}`)) ?? (s.call_id === null ? undefined : calls.get(`call:${s.call_id}`));
    if (call === undefined) continue;
    const list = under.get(call);
    if (list === undefined) under.set(call, [r]);
    else list.push(r);
    placed.add(r);
  }
  if (placed.size === 0) return rows;
  const out: TimelineRow[] = [];
  for (const r of rows) {
    if (placed.has(r)) continue;
    out.push(r);
    out.push(...(under.get(r) ?? []));
  }
  return out;
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
      interval: null,
      service: false,
    });
  }
  return underTheirCalls(rows.sort((a, b) => a.start_ms - b.start_ms || (a.line === 'stop' ? -1 : b.line === 'stop' ? 1 : 0)));
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
    if (i.kind === 'commit' && typeof i.earliest_ms === 'number') see(i.earliest_ms);
    if (i.kind === 'commit' && typeof i.latest_ms === 'number') see(i.latest_ms);
    if (i.kind === 'service_span') see(i.end_ms);
  }
  if (to - from < 1) to = from + 1;
  // A little room at the end for a call that never ended.
  if (t.end_ms === null || t.items.some((i) => (i.kind === 'tool_call' && i.end_ms === null) || (i.kind === 'commit' && i.latest_ms === null))) to += (to - from) * 0.05;
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
