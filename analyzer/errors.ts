const symbol = Symbol.for('afterstop.input-error');

/** Whether `error` carries `marker` (an error of this kind from any copy of afterstop loaded in the process). */
const carries = (error: unknown, marker: symbol): boolean => typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;

/**
 * Input the analyzer cannot use at all: a path that does not exist, a price
 * table that is not one. (A bad line inside a trace file is not an error: it
 * is reported as skipped, and the rest is analysed.)
 */
export class InputError extends Error {
  private readonly [symbol] = true;
  override readonly name = 'InputError';
  readonly path: string | undefined;
  readonly line: number | undefined;

  constructor(message: string, options: { path?: string; line?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = options.path;
    this.line = options.line;
  }

  static isInstance(error: unknown): error is InputError {
    return carries(error, symbol);
  }
}

const storageSymbol = Symbol.for('afterstop.storage-error');

/**
 * The machine could not write what the analyzer must write: the store or a
 * temporary file on a full disk, over quota, past the file size limit, or on
 * a read-only file system.
 * Not the input's fault and not a bug: nothing is marked read, and the same
 * command run again when there is room reads it all.
 */
export class StorageError extends Error {
  private readonly [storageSymbol] = true;
  override readonly name = 'StorageError';
  readonly path: string | undefined;

  constructor(message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = options.path;
  }

  static isInstance(error: unknown): error is StorageError {
    return carries(error, storageSymbol);
  }
}

const queryColumnSymbol = Symbol.for('afterstop.query-column-error');

/**
 * A query's row lacks a column its header declares (`-- @column`), or holds a
 * value of another type: the query and its header disagree. A bug, not the input's fault.
 */
export class QueryColumnError extends Error {
  private readonly [queryColumnSymbol] = true;
  override readonly name = 'QueryColumnError';

  static isInstance(error: unknown): error is QueryColumnError {
    return carries(error, queryColumnSymbol);
  }
}

const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG']);
/** DuckDB says these in its IO errors' messages (it gives no code). */
const STORAGE_MESSAGE = /No space left on device|Disk quota exceeded|Read-only file system|File too large/i;

/** Whether an error is the machine's storage refusing a write (full, over quota, read-only). */
export function isStorageFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && STORAGE_CODES.has(code)) return true;
  return error instanceof Error && STORAGE_MESSAGE.test(error.message);
}

/** Whether an error is DuckDB refusing an allocation past its memory limit (it gives no code). */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /^Out of Memory Error\b/.test(error.message);
}

/** The first line of an error's message. */
export const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
