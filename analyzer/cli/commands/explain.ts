import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_DB, explainRuns, parseExplainTarget } from '../../store-source.js';
import type { Explanation } from '../../types.js';
import { pageStart } from '../../render/html.js';
import { colorWanted, terminalColumns } from '../../render/terminal.js';
import { renderExplainHtml } from '../../render/explain-html.js';
import { renderExplainMarkdown } from '../../render/explain-markdown.js';
import { renderExplainTerminal } from '../../render/explain-terminal.js';
import { defaultTracesDir } from '@afterstop/span-contract';
import { EXIT_OK, EXIT_USAGE, type ExitCode } from '../exit-codes.js';
import { nonNegativeNumber } from '../options.js';
import { writeFileAtomic } from '../output.js';
import { silentProgress, stderrProgress } from '../progress.js';
import { inputErrorExit, printSkipped } from '../stderr.js';
import { parseTime } from '../time.js';
import { resolveFormat } from './leak-report.js';

export const EXPLAIN_FORMATS = ['table', 'markdown', 'json', 'html'] as const;
export type ExplainFormat = (typeof EXPLAIN_FORMATS)[number];

interface ExplainCommandOptions {
  db: string;
  prices?: string;
  since?: Date;
  until?: Date;
  budgetMs: number;
  format?: ExplainFormat;
  out?: string;
  progress: boolean;
}

/** `afterstop explain <finding | run id | trace id> [paths...]`: a run drawn against its Stop. */
export function explainCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('explain')
    .description('draw a stopped run against time: the Stop, the acknowledgement, what was in flight, what went on after, and the commits that landed')
    .argument('<target>', 'a finding number as leak-report lists it (3 or #3, over the same store and --since/--until), a run id, a run key (trace:run; for a run id of digits alone) or a trace id')
    .argument(
      '[paths...]',
      'trace files, folders or globs to read into the store first (default, for a run or trace id: the folder the instrumentation writes, when it exists; for a finding number: none, the store as leak-report left it)',
    )
    .option('--db <folder>', 'the store leak-report keeps (:memory: to read the paths alone)', DEFAULT_DB)
    .option('--prices <file>', 'a price table (JSON, docs/leak-report.md) whose models take its prices, over those of @pydantic/genai-prices')
    .option('--since <time>', 'number findings as leak-report --since does (ISO-8601, or an age like 24h)', (v) => parseTime(v))
    .option('--until <time>', 'number findings as leak-report --until does', (v) => parseTime(v))
    .option('--budget-ms <ms>', 'cancel-depth budget', nonNegativeNumber, 1000)
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, json otherwise, or what --out ends with)').choices(EXPLAIN_FORMATS))
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--no-progress', 'no progress on stderr')
    .addHelpText(
      'after',
      `
Examples:
  afterstop leak-report ./afterstop-traces && afterstop explain 1
  afterstop explain 4bf92f3577b34da6a3ce929d0e0e4736 --format markdown --out ticket.md
  afterstop explain 00f067aa0ba902b7 ./traces --db :memory:
  afterstop explain 2 --format html --out run.html

Exit codes: 0 drawn, 2 bad usage, unreadable input, or an id or finding the store does not hold.`,
    )
    .action((target: string, paths: string[], options: ExplainCommandOptions) => done(explainAction(target, paths, options)));
}

function render(e: Explanation, format: ExplainFormat, color: boolean): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(e, null, 2)}\n`;
    case 'markdown':
      return renderExplainMarkdown(e);
    case 'html':
      return renderExplainHtml(e, pageStart);
    case 'table':
      return renderExplainTerminal(e, { color, width: terminalColumns(process.stdout) });
  }
}

async function explainAction(targetText: string, paths: string[], options: ExplainCommandOptions): Promise<ExitCode> {
  const format = resolveFormat(options.format, options.out, process.stdout.isTTY === true) as ExplainFormat;
  if (!(EXPLAIN_FORMATS as readonly string[]).includes(format)) {
    process.stderr.write(`afterstop: explain writes ${EXPLAIN_FORMATS.join(', ')}; --out ${options.out} names another format: give --format\n`);
    return EXIT_USAGE;
  }
  const progress = options.progress ? stderrProgress() : silentProgress;
  let explanation: Explanation;
  try {
    const target = parseExplainTarget(targetText);
    // No paths: for a run or trace id, what the instrumentation wrote since the last report, when its folder
    // exists; for a finding's number, the store as leak-report left it (new spans would renumber the findings).
    const tracesDir = defaultTracesDir();
    if (paths.length === 0 && !('finding' in target) && fs.existsSync(tracesDir)) paths = [path.resolve(tracesDir)];
    explanation = await explainRuns({
      target,
      inputs: paths,
      db: options.db,
      ...(options.prices !== undefined ? { pricesFile: options.prices } : {}),
      ...(options.since !== undefined ? { since: options.since } : {}),
      ...(options.until !== undefined ? { until: options.until } : {}),
      budgetMs: options.budgetMs,
      progress: (message) => progress.update(message),
    });
  } catch (error) {
    progress.done();
    return inputErrorExit(error);
  }
  progress.done();
  const text = render(explanation, format, options.out === undefined && colorWanted(process.stdout));
  if (options.out !== undefined) {
    writeFileAtomic(options.out, text);
    process.stderr.write(`afterstop: wrote ${options.out}\n`);
  } else {
    process.stdout.write(text);
  }
  printSkipped(explanation.skipped, ' (see skipped in --format json)');
  return EXIT_OK;
}
