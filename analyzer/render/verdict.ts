import { MODEL_CALL_RUN_FRAMEWORKS } from '@afterstop/span-contract';
import type { BudgetStatus } from '../metrics/metric-families.js';
import type { LeakReport, ReportVerdict, ToolGhostCommits } from '../types.js';
import { budgetBreach, judgeFigures } from './attention.js';
import { int, ms, usd } from './format.js';
import { REMEDIES } from './remedies.js';

/**
 * The report's verdict: what went wrong, in words a manager can forward, said first by every human-readable
 * format. Never more certain than the evidence: nothing read, or no run stopped, is nothing to judge (not an
 * all-clear); a possible ghost commit could not be ruled out; an unpriced call is not $0; runs beside a
 * framework afterstop does not instrument make every figure a lower bound. An all-clear only when runs were
 * stopped and every leak figure, the possible ghost commits among them, is zero.
 */
/** The verdict (types.ts ReportVerdict): its status and sentence. */
export type Verdict = Pick<ReportVerdict, 'status' | 'sentence'>;

const TOOLS_NAMED = 3;
const NAME_CHARS = 40;

const count = (n: number, one: string, many = `${one}s`): string => `${int(n)} ${n === 1 ? one : many}`;
const was = (n: number): string => (n === 1 ? 'was' : 'were');
/** A name from the traces, cut by code points (never inside a character). */
const name = (s: string): string => {
  const chars = [...s];
  return chars.length > NAME_CHARS ? `${chars.slice(0, NAME_CHARS - 1).join('')}…` : s;
};

/** The tools of some commits: `send_email, irreversible; charge_card ×2, unknown; and 3 more`. */
function tools(rows: readonly ToolGhostCommits[], n: (t: ToolGhostCommits) => number): string {
  const some = rows.filter((t) => n(t) > 0).sort((a, b) => n(b) - n(a));
  // The effect class, not the tool, is what is unknown: `send_email, effect unknown`.
  const named = some.slice(0, TOOLS_NAMED).map((t) => `${name(t.tool)}${n(t) > 1 ? ` ×${int(n(t))}` : ''}, ${t.effect === 'unknown' ? 'effect unknown' : name(t.effect)}`);
  if (some.length > TOOLS_NAMED) named.push(`and ${int(some.length - TOOLS_NAMED)} more`);
  return named.join('; ');
}

/** `a`, `a and b`, `a, b, and c`. */
function list(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** What is known to have gone wrong, worst first, each a clause. */
function problems(report: LeakReport, budgets: readonly BudgetStatus[]): string[] {
  const t = report.totals;
  const k = t.tokens_after_stop;
  const out: string[] = [];
  if (t.ghost_commits > 0) {
    const confirmed = (t.ghost_commits_confirmed ?? 0) > 0 ? `, ${int(t.ghost_commits_confirmed)} of them confirmed by the service` : '';
    out.push(`${count(t.ghost_commits, 'side effect')} (${tools(t.ghost_commits_by_tool, (g) => g.ghost_commits)}) ${was(t.ghost_commits)} committed after the user pressed Stop${confirmed}`);
  }
  if (t.replay_duplicates > 0) out.push(`${count(t.replay_duplicates, 'side effect')} ${was(t.replay_duplicates)} committed a second time when a conversation was replayed`);
  if (t.ghost_commits_inferred > 0) {
    out.push(`${count(t.ghost_commits_inferred, 'tool call')} (${tools(t.ghost_commits_by_tool, (g) => g.ghost_commits_inferred)}) likely committed after Stop (inferred from traces afterstop did not write)`);
  }
  const rejected = t.post_cancel_errors.orphan_tool_call_rejected;
  if (rejected > 0) out.push(`${count(rejected, 'turn')} failed because Stop left a tool call unanswered`);
  if (t.post_cancel_errors.other > 0) out.push(`${count(t.post_cancel_errors.other, 'turn')} failed after a Stop`);
  if (t.orphan_tool_calls > 0) out.push(`${count(t.orphan_tool_calls, 'tool call')} lost ${t.orphan_tool_calls === 1 ? 'its' : 'their'} result to Stop`);
  const tokens = k.input + k.output;
  if (tokens > 0) {
    const priced = k.unpriced_calls === 0 ? usd(t.ghost_tax_usd) : `${usd(t.ghost_tax_usd)} priced, and ${count(k.unpriced_calls, 'call')} with no price not in it`;
    out.push(`${count(tokens, 'token')} ${was(tokens)} billed after Stop (${priced})`);
  }
  if (k.calls_without_usage > 0) out.push(`${count(k.calls_without_usage, 'model call')} ran past Stop without reporting usage (tokens not known)`);
  if (t.unacknowledged_cancels > 0) out.push(`${count(t.unacknowledged_cancels, 'Stop')} ${was(t.unacknowledged_cancels)} never acknowledged`);
  // Slow at p95 (above a second, or over its budget): the figure's own judgement (attention.ts).
  if (t.cancel_ack_ms.p95 !== null && judgeFigures(report, budgets)('cancel_ack_p95_ms').attention) out.push(`Stop took ${ms(t.cancel_ack_ms.p95)} to be acknowledged (p95)`);
  const kinds = (kind: string): number => report.findings.filter((f) => f.kind === kind).length;
  const untold = kinds('mcp_cancel_not_propagated');
  if (untold > 0) out.push(`${count(untold, 'MCP tool call')} in flight at Stop ${was(untold)} never told of it`);
  const finished = kinds('mcp_handler_finished_after_cancel');
  if (finished > 0) out.push(`${count(finished, 'MCP server handler')} finished ${finished === 1 ? 'its' : 'their'} work after the cancel`);
  if (t.unended_runs > 0) out.push(`${count(t.unended_runs, 'run')} never ended (the process hung or died)`);
  if (t.orphan_processes > 0) out.push(`${count(t.orphan_processes, 'child process', 'child processes')} outlived ${t.orphan_processes === 1 ? 'its' : 'their'} run`);
  if (t.cleanup_errors > 0) out.push(`${count(t.cleanup_errors, 'cleanup')} after Stop failed`);
  if (t.steering.dropped > 0) out.push(`${count(t.steering.dropped, 'steering message')} ${was(t.steering.dropped)} never delivered`);
  if (t.steering.violations > 0) out.push(`${count(t.steering.violations, 'steering message')} ${was(t.steering.violations)} injected inside a tool batch`);
  return out;
}

/** The clauses said in the first sentence; the rest are counted. */
const CLAUSES = 4;

/** The report's verdict under the budgets given (their status as cli/budgets.ts judged them; none: no budget is named). */
export function verdict(report: LeakReport, budgets: readonly BudgetStatus[] = []): Verdict {
  const t = report.totals;
  // Nothing read is not nothing found: the evidence's note, which names what was read, is the verdict.
  if (report.evidence.status !== 'runs') return { status: 'nothing_to_judge', sentence: report.evidence.note ?? 'Nothing to judge: no agent run was read. No figure of this report is an all-clear.' };
  const known = problems(report, budgets);
  const out: string[] = [];
  if (known.length > 0) {
    const said = known.slice(0, CLAUSES);
    if (known.length > CLAUSES) said.push(`${count(known.length - CLAUSES, 'more problem')} below`);
    out.push(sentence(list(said)));
  }
  if (t.ghost_commits_possible > 0) {
    const n = t.ghost_commits_possible;
    out.push(
      `${known.length > 0 || t.ghost_commits > 0 ? '' : 'No side effect is known to have been committed after Stop, but '}${count(n, 'side effect')} in flight at Stop (${tools(t.ghost_commits_by_tool, (g) => g.ghost_commits_possible)}) could not be ruled out: ${n === 1 ? 'it' : 'they'} may have been committed after it.`,
    );
  }
  const u = t.uninstrumented;
  const frameworks = u.packages.map(name).join(', ');
  const stopped = count(t.cancelled_runs, 'stopped run');
  // Stopped runs that are one model call each (a model SDK used directly): afterstop saw no loop and no tool there.
  const callOnly = t.cancel_depth_by_framework.filter((f) => f.framework !== null && MODEL_CALL_RUN_FRAMEWORKS.includes(f.framework));
  const callOnlyStopped = callOnly.reduce((n, f) => n + f.cancelled_runs, 0);
  const callOnlyNote =
    callOnlyStopped === 0
      ? ''
      : `${callOnlyStopped === t.cancelled_runs ? (callOnlyStopped === 1 ? 'The stopped run was' : `All ${int(callOnlyStopped)} stopped runs were`) : `${int(callOnlyStopped)} of the ${stopped} ${callOnlyStopped === 1 ? 'was' : 'were'}`} a model call made with ${list(callOnly.filter((f) => f.cancelled_runs > 0).map((f) => name(f.framework ?? '')))} outside any afterstop run: afterstop saw neither the agent's loop nor its tools there, so a tool's side effect after that Stop would not be in this report (run the loop in an afterstop run, \`startRun\`, or under a framework afterstop instruments).`;
  const broken = budgets.filter((b) => b.exceeded);
  let status: Verdict['status'];
  if (known.length > 0 || broken.length > 0) status = 'attention';
  else if (t.ghost_commits_possible > 0) status = 'possible';
  else if (t.cancelled_runs === 0) {
    status = 'nothing_to_judge';
    out.push(`No run was stopped in this window (${count(t.runs, 'run')}): nothing to judge after Stop, so this report is not an all-clear.`);
  } else if (callOnlyStopped > 0) {
    status = 'lower_bound';
    out.push(`Nothing was seen to keep running after Stop in the ${stopped}, but not all of it was in sight: a lower bound, not an all-clear.`);
  } else if (u.runs > 0) {
    status = 'lower_bound';
    out.push(
      `Nothing was seen to keep running after Stop in the ${stopped}, but ${int(u.runs)} of ${count(t.runs, 'run')} ran beside ${frameworks}, which afterstop does not instrument: a lower bound, not an all-clear.`,
    );
  } else {
    status = 'clear';
    out.push(`All clear: in the ${stopped} (of ${count(t.runs, 'run')}), nothing kept running after Stop: no side effect committed or in doubt, no token billed, no tool call left unanswered.`);
  }
  if (callOnlyNote !== '') out.push(callOnlyNote);
  if (u.runs > 0 && (status !== 'lower_bound' || callOnlyStopped > 0)) out.push(`These figures are lower bounds: ${int(u.runs)} of ${count(t.runs, 'run')} ran beside ${frameworks}, which afterstop does not instrument.`);
  if (t.commits_prevented > 0) out.push(`The guard prevented ${count(t.commits_prevented, 'commit')} after Stop.`);
  if (broken.length > 0) out.push(sentence(`${broken.length === 1 ? 'Budget' : 'Budgets'} broken: ${broken.map(budgetBreach).join('; ')}`));
  else if (budgets.length > 0 && status !== 'nothing_to_judge') out.push(`Within the ${count(budgets.length, 'budget')} given.`);
  return { status, sentence: out.join(' ') };
}

/** The report as `leak-report --format json` gives it: its figures as they are, the verdict (with the remedies of its findings' kinds) after the evidence. */
export function withVerdict(report: LeakReport, budgets: readonly BudgetStatus[] = []): LeakReport {
  const { schema, window, evidence, ...rest } = report;
  const remedies = Object.fromEntries(report.findings.map((f) => [f.kind, REMEDIES[f.kind]]));
  return { schema, window, evidence, verdict: { ...verdict(report, budgets), remedies }, ...rest };
}
