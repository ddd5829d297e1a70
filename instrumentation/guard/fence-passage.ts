import { inCleanup } from './after-stop-cleanup.js';
import { guard } from './config.js';
import { pathnameOf } from './idempotency-key.js';

/** Why a mutating request made after the Stop passes the fence: it carries the Stop (a cancel call), or cleans up. */
export type FencePassage = 'cancel' | 'cleanup';

/** What the fence asks of a tool call (run-context.ts's CommitSink has it). */
export interface FencedTool {
  readonly toolName: string;
  /** A compensating call, which runs after Stop by design, is never held. */
  readonly fenceable: boolean;
}

/**
 * Whether the fence holds `tool`'s mutating requests to `host`: it is on, the call is not a compensation,
 * the tool is among the fence's tools and the host among its hosts. The one test of the refusal
 * (http-guard.ts) and of the commit's record of a passage (commit-detection.ts): a commit is said to have
 * passed only a fence that held it.
 */
export function fenceHolds(tool: FencedTool, host: string | undefined): boolean {
  const fence = guard().fence;
  if (fence === undefined || !tool.fenceable) return false;
  if (!fence.all && !fence.tools.has(tool.toolName)) return false;
  return fence.hosts === undefined || (host !== undefined && fence.hosts(host));
}

/** Where a tool call started work before its run was stopped: the hosts it sent a mutating request to (kept on the call, by the fence). */
export interface StartedWork {
  workHosts: Set<string> | undefined;
}

/** At most this many hosts a call: a call that posts to more is not telling them apart anyway. */
const MAX_WORK_HOSTS = 32;

/** The call sent a mutating request to `host` while its run was live: a cancel call to that host later stops that work. */
export function noteWork(call: StartedWork, host: string | undefined): void {
  if (host === undefined) return;
  const hosts = (call.workHosts ??= new Set());
  if (hosts.size < MAX_WORK_HOSTS) hosts.add(host.toLowerCase());
}

/**
 * A known cancel call: a POST whose path's last segment is `cancel` (`POST /jobs/1/cancel`; OpenAI's
 * `/v1/responses/{id}/cancel`, batches, fine-tuning jobs, runs; Anthropic's `/v1/messages/batches/{id}/cancel`),
 * or ends in `:cancel` (Google's `…/operations/{name}:cancel`). It tells the service to stop: the Stop going on,
 * when the call is stopping its own work ({@link fencePassage}).
 */
function cancelCall(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  const p = pathnameOf(path).replace(/\/+$/, '');
  const last = p.slice(p.lastIndexOf('/') + 1).toLowerCase();
  return last === 'cancel' || last.endsWith(':cancel');
}

/**
 * Whether a mutating request `call` makes now, after the Stop, passes the fence, and why: in
 * `afterStopCleanup`, or a cancel call to a host the call started work on before the Stop (it stops its own
 * job). A cancel call to a host it had not posted to is a new effect like any other (a `cancel_subscription`
 * tool run on after Stop), and is refused.
 */
export function fencePassage(call: StartedWork, method: string, host: string | undefined, path: string): FencePassage | undefined {
  if (inCleanup()) return 'cleanup';
  if (host === undefined || call.workHosts === undefined || !cancelCall(method, path)) return undefined;
  return call.workHosts.has(host.toLowerCase()) ? 'cancel' : undefined;
}
