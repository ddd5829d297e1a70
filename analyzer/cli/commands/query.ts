import { once } from 'node:events';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ROW_FORMATS, rowWriter, type RowFormat } from '../../render/rows.js';
import { columns } from '../../render/text-table.js';
import { DEFAULT_DB, readOnlyQueries, streamStoreQuery } from '../../store-source.js';
import { inputErrorExit } from '../stderr.js';
import { EXIT_OK, EXIT_USAGE, type ExitCode } from '../exit-codes.js';
import { nonNegativeNumber } from '../options.js';
import { parseTime } from '../time.js';

interface QueryOptions {
  db: string;
  param: string[];
  format?: RowFormat;
  since?: Date;
  until?: Date;
  budgetMs: number;
  prices?: string;
}

const collect = (value: string, previous: string[]): string[] => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError('expected name=value');
  return [...previous, value];
};

/** `afterstop query [name]`: run one of the read-only queries of queries/ over the store. */
export function queryCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('query')
    .description('run a named query of queries/ over the store and print its rows (no name: list them)')
    .argument('[name]', 'the query: its file name without .sql, e.g. cancel-latency')
    .option('--db <folder>', 'the store (a folder of Parquet files and its catalog)', DEFAULT_DB)
    .option('--param <name=value>', 'a parameter of the query (repeatable; lists comma-separated)', collect, [])
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, json otherwise)').choices(ROW_FORMATS))
    .option('--since <time>', 'for queries over the report: runs that start at or after this time', (v) => parseTime(v))
    .option('--until <time>', 'for queries over the report: runs that start before this time', (v) => parseTime(v))
    .option('--budget-ms <ms>', 'for queries over the report: the cancel-depth budget', nonNegativeNumber, 1000)
    .option('--prices <file>', 'for queries over the report: a price table whose models take its prices, over those of @pydantic/genai-prices')
    .addHelpText(
      'after',
      `
Examples:
  afterstop query
  afterstop query cancel-latency --since 7d
  afterstop query findings --param limit=20 --format csv
  afterstop query ghost-commits-by-tool --format markdown`,
    )
    .action((name: string | undefined, options: QueryOptions) => done(runQuery(name, options)));
}

/**
 * Write to stdout, waiting for its 'drain' when it is full (`once` rejects if it emits 'error' first). Its errors
 * also end the process, main.ts: a reader gone quietly, a full disk with exit 74.
 */
const toStdout = async (text: string): Promise<void> => {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
};

function listing(): string {
  const rows = readOnlyQueries().map((q) => [q.file, q.query.params.map((p) => p.name).join(', '), q.query.description.slice(0, 100)]);
  return `${columns(['query', 'params', 'description'], rows).join('\n')}\n`;
}

async function runQuery(name: string | undefined, options: QueryOptions): Promise<ExitCode> {
  if (name === undefined) {
    process.stdout.write(listing());
    return EXIT_OK;
  }
  if (!readOnlyQueries().some((q) => q.file === name)) {
    process.stderr.write(`afterstop: no read-only query named ${name}; \`afterstop query\` lists them\n`);
    return EXIT_USAGE;
  }
  const format = options.format ?? (process.stdout.isTTY ? 'table' : 'json');
  // JSON and CSV are written as DuckDB reads the rows (a long run's timeline is hundreds of thousands), each
  // write waiting for stdout to take the last; a table and Markdown are aligned over all of them first.
  const writer = rowWriter(format, toStdout);
  try {
    await streamStoreQuery(name, { db: options.db, params: options.param, since: options.since, until: options.until, budgetMs: options.budgetMs, prices: options.prices }, writer);
    await writer.end();
    return EXIT_OK;
  } catch (error) {
    return inputErrorExit(error);
  }
}
