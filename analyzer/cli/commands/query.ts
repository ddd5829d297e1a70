import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_DB } from '../../analyze.js';
import { InputError, firstLine } from '../../errors.js';
import { loadPrices } from '../../prices.js';
import { isReadOnly, listQueries, query, type Query } from '../../queries.js';
import { prepareReport, prepareReportSpans, reportParams, windowParams } from '../../report.js';
import { renderRows, ROW_FORMATS, type RowFormat } from '../../render/rows.js';
import { columns } from '../../render/text-table.js';
import { withStore } from '../../store.js';
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
    .addHelpText('after', `
Examples:
  afterstop query
  afterstop query cancel-latency --since 7d
  afterstop query findings --param limit=20 --format csv
  afterstop query ghost-commits-by-tool --format markdown`)
    .action((name: string | undefined, options: QueryOptions) => done(runQuery(name, options)));
}

/** A parameter's text as the type the query's header declares. */
export function coerceParam(q: Query, name: string, value: string): DuckDBValue {
  const declared = q.params.find((p) => p.name === name);
  if (declared === undefined) throw new InputError(`${q.name}: no parameter ${name} (it takes: ${q.params.map((p) => p.name).join(', ') || 'none'})`);
  const type = declared.type.toUpperCase();
  if (type.endsWith('[]')) return listValue(value === '' ? [] : value.split(','));
  if (/INT/.test(type)) {
    if (!/^-?\d+$/.test(value)) throw new InputError(`${q.name}: ${name} must be an integer`);
    return BigInt(value);
  }
  if (/DOUBLE|FLOAT|DECIMAL/.test(type)) {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${q.name}: ${name} must be a number`);
    return n;
  }
  return value;
}

function listing(): string {
  const rows = listQueries().filter((q) => isReadOnly(q.query)).map((q) => [q.file, q.query.params.map((p) => p.name).join(', '), q.query.description.slice(0, 100)]);
  return `${columns(['query', 'params', 'description'], rows).join('\n')}\n`;
}

async function runQuery(name: string | undefined, options: QueryOptions): Promise<ExitCode> {
  if (name === undefined) {
    process.stdout.write(listing());
    return EXIT_OK;
  }
  const known = listQueries().find((q) => q.file === name);
  if (known === undefined || !isReadOnly(known.query)) {
    process.stderr.write(`afterstop: no read-only query named ${name}; \`afterstop query\` lists them\n`);
    return EXIT_USAGE;
  }
  const q = query(name);
  const format = options.format ?? (process.stdout.isTTY ? 'table' : 'json');
  try {
    const params: Record<string, DuckDBValue> = {};
    for (const p of options.param) {
      const at = p.indexOf('=');
      params[p.slice(0, at)] = coerceParam(q, p.slice(0, at), p.slice(at + 1));
    }
    // The parameters the report gives a query (for a read-only one, the window: --since and --until, an open end
    // NULL) come from the options, as they do for the prepared tables it reads, so that both agree.
    const fromOptions = reportParams({ since: options.since, until: options.until, budgetMs: options.budgetMs })(name);
    for (const key of Object.keys(fromOptions)) {
      if (key in params) throw new InputError(`${name}: ${key} is the window: give --since and --until instead of --param ${key}`);
    }
    Object.assign(params, fromOptions);
    const missing = q.params.filter((p) => !(p.name in params)).map((p) => p.name);
    if (missing.length > 0) throw new InputError(`${name}: give --param ${missing.map((m) => `${m}=...`).join(' --param ')}`);
    const rows = await withStore(options.db, async (store) => {
      // Queries over the report's tables (report_runs, report_tokens, ...) need them prepared first.
      if (q.sql.includes('report_')) {
        await prepareReport(store, { since: options.since, until: options.until, budgetMs: options.budgetMs, ...(options.prices !== undefined ? { prices: loadPrices(options.prices) } : {}) });
      }
      // And those over the window's spans (run-timeline.sql), the view of its Parquet files.
      if (q.sql.includes('report_spans')) {
        const window = windowParams({ since: options.since, until: options.until });
        await prepareReportSpans(store, window.since_ns, window.until_ns);
      }
      try {
        return await store.rows(q, params);
      } catch (error) {
        // The query is ours and ran in the tests; what fails here is the values the user gave it (a negative limit).
        throw new InputError(`${name}: ${firstLine(error)} (check the --param values)`, { cause: error });
      }
    });
    process.stdout.write(renderRows(rows, format));
    return EXIT_OK;
  } catch (error) {
    return inputErrorExit(error);
  }
}
