const marker = 'afterstop.input-error';
const symbol = Symbol.for(marker);

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
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
  }
}
