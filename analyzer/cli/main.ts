#!/usr/bin/env node
/**
 * The `afterstop` command. Builds the program; every command hands back a
 * promise of its exit code, and the process exits here, in one place.
 */
// First: it sizes libuv's thread pool before DuckDB's client, loaded by a command that uses the store, starts it.
import { isCommandEntry } from './entry.js';
import { Command, CommanderError } from 'commander';
import { explainCommand } from './commands/explain.js';
import { ingestCommand } from './commands/ingest.js';
import { leakReportCommand } from './commands/leak-report.js';
import { pruneCommand } from './commands/prune.js';
import { queryCommand } from './commands/query.js';
import { simulatorCommand } from './commands/simulator.js';
import { InputError, StorageError, firstLine, isOutOfMemory, isStorageFailure } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { analyzerVersion } from '../version.js';
import { EXIT_INTERNAL, EXIT_STORAGE, EXIT_USAGE, type ExitCode } from './exit-codes.js';

/** Credentials (a URL's `//user:password@host`, a password parameter, a credential header) are never echoed: commander repeats an invalid argument whole. */
export const redactCredentials = redactSecrets;

/** Something that is not the user's doing: said with its stack, and its own exit code. */
function internalError(error: unknown): ExitCode {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`afterstop: internal error (please report it): ${redactCredentials(text)}\n`);
  return EXIT_INTERNAL;
}

export function buildProgram(done: (code: Promise<ExitCode>) => void): Command {
  const program = new Command('afterstop')
    .description('what an AI agent keeps doing after its user pressed Stop')
    .version(analyzerVersion())
    .addCommand(leakReportCommand(done))
    .addCommand(explainCommand(done))
    .addCommand(ingestCommand(done))
    .addCommand(queryCommand(done))
    .addCommand(pruneCommand(done))
    .addCommand(simulatorCommand(done));
  // Commander would call process.exit on a usage error; every command throws instead,
  // so that the program exits in one place.
  for (const command of [program, ...program.commands]) {
    command.exitOverride();
    command.configureOutput({ outputError: (text, write) => write(redactCredentials(text)) });
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  let pending: Promise<ExitCode> | undefined;
  const program = buildProgram((code) => (pending = code));
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    return failed(error);
  }
  if (pending === undefined) {
    program.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  try {
    return await pending;
  } catch (error) {
    return failed(error);
  }
}

/**
 * A command that threw: bad input or usage (an InputError, or DuckDB out of memory within the limit the user
 * set) is one line and exit 2; storage that refused a write (a StorageError) one line and exit 74; anything
 * else is internal.
 */
export function failed(error: unknown): ExitCode {
  if (isOutOfMemory(error)) {
    // The memory limit is the user's setting (or its default, store-memory.ts): usage, not a bug.
    process.stderr.write(`afterstop: DuckDB ran out of memory (${firstLine(error)}); raise AFTERSTOP_MEMORY_LIMIT\n`);
    return EXIT_USAGE;
  }
  const code = StorageError.isInstance(error) ? EXIT_STORAGE : InputError.isInstance(error) ? EXIT_USAGE : undefined;
  if (code === undefined) return internalError(error);
  process.stderr.write(`afterstop: ${redactCredentials((error as Error).message)}\n`);
  return code;
}

/**
 * A reader that closed stdout early (`afterstop query ... | head`) is not an error of ours: stop writing and
 * exit with what the command had, quietly. Output the machine cannot write (stdout on a full disk, `> /dev/full`)
 * is one line and exit 74, as a store it cannot write is; any other error of the stream is internal. Never exit 1,
 * which is a broken budget's.
 */
function quietOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    if (!isStorageFailure(error)) process.exit(internalError(error));
    process.stderr.write(`afterstop: could not write the output to stdout (${firstLine(error)}); what was written is incomplete\n`);
    process.exit(EXIT_STORAGE);
  });
}

if (isCommandEntry) {
  quietOnClosedStdout();
  process.exitCode = await main(process.argv).catch(internalError);
}
