import { Command } from 'commander';
import { DEFAULT_DB, ingestTraces } from '../../store-source.js';
import { EXIT_OK, type ExitCode } from '../exit-codes.js';
import { silentProgress, stderrProgress } from '../progress.js';
import { inputErrorExit, printSkipped } from '../stderr.js';

interface IngestOptions {
  db: string;
  progress: boolean;
}

/** `afterstop ingest <paths...>`: load traces into the store without reporting. */
export function ingestCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('ingest')
    .description('read traces (files, folders, globs) into the store, without a report')
    .argument('<paths...>', 'OTLP/JSON trace files, folders (also of Tempo blocks) or glob patterns')
    .option('--db <folder>', 'the store that accumulates across runs (a folder of Parquet files and its catalog)', DEFAULT_DB)
    .option('--no-progress', 'no progress on stderr')
    .addHelpText(
      'after',
      `
Prints what was read as JSON on stdout (files, files read, spans read and added, lines skipped).

Examples:
  afterstop ingest ./afterstop-traces --db ./leaks
  afterstop ingest '/var/log/otel/traces-*.jsonl.zst'`,
    )
    .action((paths: string[], options: IngestOptions) => done(ingestAction(paths, options)));
}

async function ingestAction(paths: string[], options: IngestOptions): Promise<ExitCode> {
  const progress = options.progress ? stderrProgress() : silentProgress;
  try {
    const summary = await ingestTraces({
      inputs: paths,
      db: options.db,
      progress: (message, percentage) => progress.update(message, percentage),
      trackProgress: options.progress && process.stderr.isTTY === true,
    });
    progress.done();
    printSkipped(summary.skipped, '', summary.skippedCount);
    const { skipped: _skipped, skippedCount, ...figures } = summary;
    process.stdout.write(`${JSON.stringify({ ...figures, skipped: skippedCount }, null, 2)}\n`);
    return EXIT_OK;
  } catch (error) {
    progress.done();
    return inputErrorExit(error);
  }
}
