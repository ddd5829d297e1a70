const marker = 'afterstop.error';
const symbol = Symbol.for(marker);

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
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
  }
}

/**
 * Whether `error` is how an aborted operation ends: the signal's own reason,
 * an `AbortError` (fetch, undici, the OpenAI and Anthropic SDKs), or a
 * CancelledError.
 */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (error === undefined || error === null) return false;
  if (signal?.aborted && error === signal.reason) return true;
  if (CancelledError.isInstance(error)) return true;
  if (typeof error !== 'object') return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError' || name === 'CancelledError';
}
