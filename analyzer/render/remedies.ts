import type { Finding, FindingKind, LeakReport } from '../types.js';

/**
 * What to do about each kind of finding, in one line: the concrete fix (a guard setting of docs/guard.md, a
 * code pattern, a framework version of docs/instrumentations.md). Every kind the analyzer emits
 * (types.ts FINDING_KINDS, which findings.sql is tested against) has one; docs/leak-report.md lists them, and
 * a test holds the two equal.
 */
export const REMEDIES: Readonly<Record<FindingKind, string>> = {
  ghost_commit:
    "Fence the tool: the guard's `fence: ['tool_name']` (`AFTERSTOP_GUARD_FENCE=tool_name`) refuses its mutating request once Stop was pressed; and pass the run's signal to the request (`fetch(url, { signal })`).",
  possible_ghost_commit:
    "Make the effect safe to repeat and check it: the guard's `idempotencyKeys: { hosts: ['api.example.com'] }` puts an Idempotency-Key on the request, and a service traced with OpenTelemetry confirms or rules the commit out.",
  ghost_commit_inferred:
    'Instrument the framework (`node --import afterstop/register`, at a version docs/instrumentations.md lists) or mark the commit (`commit()`), so the ghost is known, not inferred; then fence the tool.',
  replay_duplicate:
    "Key the side effect: the guard's `idempotencyKeys: { hosts: [...], scope: 'conversation', secret }` gives a resumed call its first try's key and the service drops the replay (in another process only under a shared `secret`).",
  tokens_after_stop:
    "Pass the Stop's signal to the model call (`streamText({ abortSignal })`, `client.chat.completions.create(body, { signal })`) so the provider's stream is closed at Stop; the guard's `deadlineMs` caps a run that never hears it.",
  orphan_tool_call: 'Answer every unanswered tool call before the next turn (a synthetic tool result for each, or drop the turn), and record it with `run.repairHistory({ strategy, toolCallIds })`.',
  unacknowledged_cancel:
    "Let the loop hear Stop: hand the run's signal to every model and tool call and check `signal.aborted` between steps; with the guard's `deadlineMs` set, the framework's calls follow the run's signal, `run.cancel()` included.",
  post_cancel_error:
    'The next turn failed on the history Stop left: repair it before resuming (a synthetic tool result for each unanswered call, recorded with `run.repairHistory(...)`; PydanticAI >= 2.10 repairs it itself).',
  unended_run: "End the run in a `finally` and flush the tracer on shutdown (`sdk.shutdown()` on SIGTERM); the guard's `deadlineMs` cancels a run that hangs.",
  orphan_process: 'Stop child processes with the run: `spawn(cmd, args, { signal })` and kill the process group on Stop (`process.kill(-pid)`).',
  mcp_cancel_not_propagated:
    "Tell the MCP server: with the MCP SDK's Client, pass the run's signal (`client.callTool(params, undefined, { signal })`); `@ai-sdk/mcp` never sends the cancel, so fence the tool (`guard: { fence: [...] }`), which sends `notifications/cancelled` for it.",
  mcp_handler_finished_after_cancel:
    "Make the server's handler honour `extra.signal` (pass it to its own requests, check it before committing); over Streamable HTTP, SDK 1.32 leaves the handler running on a closed stream: send `notifications/cancelled`.",
  commit_witnessed_by_service: "Nothing to change for this row: the service's own spans decided the commit (a confirmed one is a ghost commit: fence the tool, as for `ghost_commit`).",
  commit_inside_clock_bound:
    "Tighten the clock bound: synchronise the agent's and the service's clocks (`chronyd`, NTP) and let the service answer more of the agent's requests (each answered one narrows it); until then the commit stays possible.",
  cleanup_error: 'Make cleanup after Stop idempotent and abort-tolerant: catch the `AbortError`, release what is open once.',
  steer_violation: "Inject steering messages between steps, after every result of the tool batch is in the history (`run.steering.inject(id, 'between_steps')`), never inside a batch.",
  steer_dropped: 'Inject a queued steering message at the next step, or drop it explicitly (`run.steering.drop`) and tell the user it was not delivered.',
};

/** The findings of one kind: how many the report lists, the remedy, and the worst of them (the report's order) with their numbers. */
export interface FindingGroup {
  kind: FindingKind;
  count: number;
  remedy: string;
  /** The group's findings among those shown, each with its number in the report (1-based, what `afterstop explain N` takes). */
  rows: { number: number; finding: Finding }[];
}

/**
 * The report's findings by kind, the kind of the worst finding first (the report orders them by severity);
 * `shown`: how many of the report's findings are listed (the worst), each under its kind.
 */
export function findingGroups(report: Pick<LeakReport, 'findings'>, shown = Number.POSITIVE_INFINITY): FindingGroup[] {
  const groups = new Map<FindingKind, FindingGroup>();
  report.findings.forEach((finding, i) => {
    let group = groups.get(finding.kind);
    if (group === undefined) {
      group = { kind: finding.kind, count: 0, remedy: REMEDIES[finding.kind], rows: [] };
      groups.set(finding.kind, group);
    }
    group.count += 1;
    if (i < shown) group.rows.push({ number: i + 1, finding });
  });
  return [...groups.values()];
}
