/**
 * The CLI's exit codes, each meaning one thing: 0 all is well, 1 a budget was broken, 3 budgets were given and
 * the report had nothing to judge (no span read, or no agent run in the window: nothing read is not nothing
 * found; `--allow-empty` makes such a night a pass), 2 bad usage or
 * unreadable input, or a memory limit (AFTERSTOP_MEMORY_LIMIT) DuckDB cannot work within (one line on stderr naming what), 70 an internal error (a bug: the stack on stderr;
 * EX_SOFTWARE of sysexits.h), 74 the store, a temporary file or the output could not be written (a full disk, a quota,
 * a read-only file system: EX_IOERR; nothing was marked read, the same command reads it all again), so that a nightly job never reads a crash as a breached budget.
 */
export const EXIT_OK = 0;
export const EXIT_BUDGET = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOTHING_TO_JUDGE = 3;
export const EXIT_INTERNAL = 70;
export const EXIT_STORAGE = 74;

export type ExitCode = typeof EXIT_OK | typeof EXIT_BUDGET | typeof EXIT_USAGE | typeof EXIT_NOTHING_TO_JUDGE | typeof EXIT_INTERNAL | typeof EXIT_STORAGE;

/** Where a command reports an outcome: the program exits in one place, with it. */
export interface CommandResult {
  exitCode: ExitCode;
}
