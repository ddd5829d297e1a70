import { Command, Option } from 'commander';
import { analyze, DEFAULT_DB } from '../../analyze.js';
import { InputError } from '../../errors.js';
import { EXIT_OK, EXIT_USAGE, type ExitCode } from '../exit-codes.js';
import { nonNegativeNumber } from '../options.js';
import { parseTime } from '../time.js';

interface LeakReportOptions {
  db: string;
  prices?: string;
  since?: Date;
  until?: Date;
  format: 'json';
  budgetMs: number;
  findings: number;
  progress: boolean;
}

/** `afterstop leak-report <paths...>`: what the agents did after Stop, from their traces. */
export function leakReportCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('leak-report')
    .description('read traces (files, folders, globs) into the store and report what went on after Stop')
    .argument('<paths...>', 'OTLP/JSON trace files, folders or glob patterns')
    .option('--db <file>', 'the DuckDB store that accumulates across runs (:memory: for a one-off)', DEFAULT_DB)
    .option('--prices <file>', 'a price table that replaces the shipped one')
    .option('--since <time>', 'runs that start at or after this time (ISO-8601, or an age like 24h)', (v) => parseTime(v))
    .option('--until <time>', 'runs that start before this time', (v) => parseTime(v))
    .addOption(new Option('--format <format>', 'output format').choices(['json']).default('json'))
    .option('--budget-ms <ms>', 'cancel-depth budget', nonNegativeNumber, 1000)
    .option('--findings <n>', 'at most this many findings', nonNegativeNumber, 1000)
    .option('--no-progress', 'no progress lines on stderr')
    .action((paths: string[], options: LeakReportOptions) => done(leakReport(paths, options)));
}

async function leakReport(paths: string[], options: LeakReportOptions): Promise<ExitCode> {
  const progress = options.progress ? (message: string) => process.stderr.write(`afterstop: ${message}\n`) : undefined;
  try {
    const report = await analyze({
      inputs: paths,
      db: options.db,
      ...(options.prices !== undefined ? { pricesFile: options.prices } : {}),
      ...(options.since !== undefined ? { since: options.since } : {}),
      ...(options.until !== undefined ? { until: options.until } : {}),
      budgetMs: options.budgetMs,
      findingsLimit: Math.floor(options.findings),
      ...(progress ? { progress } : {}),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    for (const s of report.input.skipped.slice(0, 20)) process.stderr.write(`afterstop: skipped ${s.file}:${s.line}: ${s.reason}\n`);
    if (report.input.skipped_count > 20) process.stderr.write(`afterstop: ... and ${report.input.skipped_count - 20} more skipped (see input.skipped)\n`);
    return EXIT_OK;
  } catch (error) {
    if (InputError.isInstance(error)) {
      process.stderr.write(`afterstop: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
