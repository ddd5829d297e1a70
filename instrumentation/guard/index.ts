/**
 * The guard as the rest of the instrumentation sees it: the one module of
 * guard/ the core imports (a dependency-cruiser rule, .dependency-cruiser.cjs).
 * Its installation (setup.ts, which patches node:http through http-guard.ts)
 * is the composition roots' (index.ts, pipeline.ts): http-guard.ts uses the
 * core's commit detection, so listing it here would close a cycle.
 */

// What the app configured: the fence, the idempotency keys, the run deadline.
export { deadlineFrom, guard, hostMatcher, httpGuardOn, type HostMatcher, type ResolvedGuard } from './config.js';

// The commit fence: whether it holds a tool's request, and why one passes it after the Stop.
export { fenceHolds, fencePassage, type FencedTool, type FencePassage, type StartedWork } from './fence-passage.js';

// Idempotency keys: the key of a mutating request, and what a tool call keeps of the keys it sent.
export { keyFor, pathnameOf, unreadStatus, type KeyedAttempt, type KeyedCall, type KeyEndpoint } from './idempotency-key.js';

// The app's own cleanup after the Stop, which the fence lets through (public API: index.ts).
export { afterStopCleanup } from './after-stop-cleanup.js';
