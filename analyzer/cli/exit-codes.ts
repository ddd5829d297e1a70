/** The CLI's exit codes: 0 all is well, 1 a budget was broken, 2 bad usage or unreadable input. */
export const EXIT_OK = 0;
export const EXIT_BUDGET = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_BUDGET | typeof EXIT_USAGE;

/** Where a command reports an outcome: the program exits in one place, with it. */
export interface CommandResult {
  exitCode: ExitCode;
}
