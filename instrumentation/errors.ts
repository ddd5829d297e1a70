const marker = 'afterstop.error';
const symbol = Symbol.for(marker);

/** `error` carries `mark` (a `Symbol.for` key): true for an error of any copy of afterstop loaded in the process. */
const marked = (error: unknown, mark: symbol): boolean => typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[mark] === true;

/**
 * Thrown by `run.checkpoint()` when the run was cancelled. Its name is
 * `AbortError`, like the error `fetch` throws for an aborted signal, so code
 * that already handles aborts handles it too.
 */
export class CancelledError extends Error {
  private readonly [symbol] = true;
  override readonly name = 'AbortError';
  readonly cancelId: string | undefined;

  constructor(message = 'The run was cancelled', options?: { cancelId?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.cancelId = options?.cancelId;
  }

  /** True for a CancelledError from any copy of afterstop loaded in the process. */
  static isInstance(error: unknown): error is CancelledError {
    return marked(error, symbol);
  }
}

const abortedSymbol = Symbol.for('afterstop.error.aborted');

/**
 * Mark `error` as the end of an aborted request, for a client whose abort error does not say so (the MCP SDK's
 * Client rejects an aborted request with an McpError that keeps the abort's reason only as text): a hidden
 * `Symbol.for` key, read by {@link isAbortError}. Nothing the app reads changes. Never throws.
 */
export function markAborted(error: unknown): void {
  try {
    if (typeof error === 'object' && error !== null && Object.isExtensible(error) && !marked(error, abortedSymbol)) {
      Object.defineProperty(error, abortedSymbol, { value: true, enumerable: false, configurable: true });
    }
  } catch {
    // A proxy that refuses: not marked.
  }
}

/** How far down an error's `cause` chain an abort is looked for (a wrapper of a wrapper of the abort). */
export const CAUSE_DEPTH = 8;

/** The error itself is an abort: the signal's reason, an `AbortError` (DOMException or not), a CancelledError. */
function isAbortItself(error: unknown, signal?: AbortSignal): boolean {
  if (error === undefined || error === null) return false;
  if (signal?.aborted && error === signal.reason) return true;
  if (CancelledError.isInstance(error) || DeadlineExceededError.isInstance(error) || marked(error, abortedSymbol)) return true;
  if (typeof error !== 'object') return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError' || name === 'CancelledError';
}

/**
 * Whether `error` is how an aborted operation ends: the signal's own reason,
 * an `AbortError` (fetch, undici, the OpenAI and Anthropic SDKs), or a
 * CancelledError; or an error that wraps one in its `cause` chain (followed
 * {@link CAUSE_DEPTH} deep: an MCP client's `MCPClientError` "Request was
 * aborted" carries the signal's reason as its cause). Never throws.
 */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  try {
    let e = error;
    for (let depth = 0; depth <= CAUSE_DEPTH && e !== undefined && e !== null; depth++) {
      if (isAbortItself(e, signal)) return true;
      if (typeof e !== 'object') return false;
      const cause: unknown = (e as { cause?: unknown }).cause;
      if (cause === e) return false;
      e = cause;
    }
    return false;
  } catch {
    // A hostile getter on the error: not known to be an abort.
    return false;
  }
}

const fencedSymbol = Symbol.for('afterstop.error.commit-fenced');

/**
 * What a tool gets from `fetch` or `http.request` when the guard's commit
 * fence refused its mutating request: its run was already stopped, and
 * nothing was sent. Its name is `AbortError`, the error an aborted request
 * gives, so a tool that handles aborts handles it too; `cause` is the run's
 * abort reason.
 */
export class CommitFencedError extends Error {
  private readonly [fencedSymbol] = true;
  override readonly name = 'AbortError';
  /** As DOMException's AbortError has it (some HTTP clients test the code). */
  readonly code = 'ABORT_ERR';
  readonly method: string;
  readonly host: string | undefined;

  constructor(method: string, host: string | undefined, cause?: unknown) {
    super(`afterstop: the run was stopped, so this ${method} request${host ? ` to ${host}` : ''} was not sent (commit fence)`, cause === undefined ? undefined : { cause });
    this.method = method;
    this.host = host;
  }

  static isInstance(error: unknown): error is CommitFencedError {
    return marked(error, fencedSymbol);
  }
}

const deadlineSymbol = Symbol.for('afterstop.error.deadline-exceeded');

/**
 * The reason a run's signal aborts when the guard's deadline passed. Its name
 * is `TimeoutError`, as `AbortSignal.timeout()` gives, so the cancel is
 * recorded with source `timeout`.
 */
export class DeadlineExceededError extends Error {
  private readonly [deadlineSymbol] = true;
  override readonly name = 'TimeoutError';
  readonly code = 'ABORT_ERR';
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    super(`afterstop: the run passed its deadline of ${deadlineMs} ms`);
    this.deadlineMs = deadlineMs;
  }

  static isInstance(error: unknown): error is DeadlineExceededError {
    return marked(error, deadlineSymbol);
  }
}
