import * as fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { InputError } from '../../errors.js';
import { futureFromNs, toNs } from '../../report-time.js';
import { DEFAULT_DB, pruneStore } from '../../store-source.js';
import { EXIT_OK, type ExitCode } from '../exit-codes.js';
import { inputErrorExit } from '../stderr.js';
import { AGE, parseTime } from '../time.js';

interface PruneOptions {
  db: string;
  olderThan: Date;
}

/** An age (`30d`, `12w`), not a date: retention is said as an age. */
function age(value: string): Date {
  if (!AGE.test(value.trim())) throw new InvalidArgumentError('not an age: use e.g. 30d, 12w or 36h');
  return parseTime(value);
}

/** `afterstop prune --older-than 30d`: retention for the store. */
export function pruneCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('prune')
    .description('remove from the store the days older than an age (their Parquet files and their runs), and what is stamped more than a day in the future')
    .requiredOption('--older-than <age>', 'remove the days wholly before now minus this age (UTC days), e.g. 30d', age)
    .option('--db <folder>', 'the store', DEFAULT_DB)
    .addHelpText(
      'after',
      `
Runs stamped more than a day after now (clock skew, bad data: no report's window
holds them) are removed too, with the days after that day. Prints what was removed
as JSON on stdout (before, after, days, files, spans, runs). The trace
files already read stay recorded as read: they are not read again.

Examples:
  afterstop prune --older-than 30d
  afterstop prune --older-than 12w --db /var/lib/afterstop/store`,
    )
    .action((options: PruneOptions) => done(prune(options)));
}

async function prune(options: PruneOptions): Promise<ExitCode> {
  try {
    if (!fs.existsSync(options.db)) throw new InputError(`${options.db}: no store there`, { path: options.db });
    const future = futureFromNs(undefined);
    const summary = await pruneStore(options.db, toNs(options.olderThan) ?? 0n, future);
    // What is stamped in the future (a day past now: clock skew, bad data) goes too: no report's window holds it.
    const after = new Date(Number(future / 1_000_000n)).toISOString();
    process.stdout.write(`${JSON.stringify({ before: options.olderThan.toISOString(), after, ...summary }, null, 2)}\n`);
    return EXIT_OK;
  } catch (error) {
    return inputErrorExit(error);
  }
}
