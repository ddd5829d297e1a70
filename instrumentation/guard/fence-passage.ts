import { inCleanup } from './after-stop-cleanup.js';
import { pathnameOf } from './idempotency-key.js';

/** Why a mutating request made after the Stop passes the fence: it carries the Stop (a cancel call), or cleans up. */
export type FencePassage = 'cancel' | 'cleanup';

/**
 * A known cancel call: a POST whose path's last segment is `cancel` (`POST /jobs/1/cancel`; OpenAI's
 * `/v1/responses/{id}/cancel`, batches, fine-tuning jobs, runs; Anthropic's `/v1/messages/batches/{id}/cancel`),
 * or ends in `:cancel` (Google's `…/operations/{name}:cancel`). It tells the service to stop: the Stop going on.
 */
export function cancelCall(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  const p = pathnameOf(path).replace(/\/+$/, '');
  const last = p.slice(p.lastIndexOf('/') + 1).toLowerCase();
  return last === 'cancel' || last.endsWith(':cancel');
}

/** Whether a mutating request made now, after the Stop, passes the fence, and why. */
export const fencePassage = (method: string, path: string): FencePassage | undefined => (inCleanup() ? 'cleanup' : cancelCall(method, path) ? 'cancel' : undefined);
