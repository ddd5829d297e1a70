import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { clickhouseReportSource, traceFilesSource, type ReportSource } from '../../report-source.js';
import { DEFAULT_DB } from '../../store-source.js';
import { checkTraceUrl, renderHtml } from '../../render/html.js';
import { renderMarkdown } from '../../render/markdown.js';
import { colorWanted, renderTerminal } from '../../render/terminal.js';
import { withVerdict } from '../../render/verdict.js';
import type { LeakReport } from '../../types.js';
import { defaultTracesDir } from '@afterstop/span-contract';
import { futureRunsNote } from '../../report-evidence.js';
import { terminalLine } from '../../render/text-table.js';
import { redactSecrets, redactUrl } from '../../redact.js';
import { addBudgetOptions, brokenOf, budgetStatus } from '../budgets.js';
import type { BudgetStatus } from '../../metrics/metric-families.js';
import { EXIT_BUDGET, EXIT_NOTHING_TO_JUDGE, EXIT_OK, EXIT_USAGE, type ExitCode } from '../exit-codes.js';
import { nonNegativeNumber } from '../options.js';
import { writeFileAtomic } from '../output.js';
import { silentProgress, stderrProgress } from '../progress.js';
import { inputErrorExit, printSkipped } from '../stderr.js';
import { parseTime, sourceDateEpoch } from '../time.js';

/** Runs drawn in the HTML report unless --timelines says otherwise (at most 150 lanes each, texts cut: about 60 kB a run at most). */
export const DEFAULT_TIMELINES = 20;

export const REPORT_FORMATS = ['table', 'json', 'markdown', 'html', 'arrow'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

interface LeakReportOptions {
  db: string;
  prices?: string;
  since?: Date;
  until?: Date;
  format?: ReportFormat;
  out?: string;
  traceUrl?: string;
  budgetMs: number;
  findings: number;
  top: number;
  progress: boolean;
  pushGateway?: string;
  pushJob: string;
  pushInstance: string;
  prometheusFile?: string;
  maxLabelValues: number;
  clickhouse?: string;
  table: string;
  timelines?: number;
  allowEmpty?: boolean;
  [budget: string]: unknown;
}

const EXTENSIONS: Record<string, ReportFormat> = {
  '.json': 'json',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.arrow': 'arrow',
  '.txt': 'table',
};

/**
 * The format asked for; else the one --out's extension names; else a table
 * for a person at a terminal and JSON for a program reading stdout.
 */
export function resolveFormat(format: ReportFormat | undefined, out: string | undefined, stdoutIsTTY: boolean): ReportFormat {
  if (format !== undefined) return format;
  if (out !== undefined) {
    const byExtension = EXTENSIONS[path.extname(out).toLowerCase()];
    if (byExtension !== undefined) return byExtension;
  }
  return stdoutIsTTY && out === undefined ? 'table' : 'json';
}

/** A trace viewer URL template for --trace-url: what the HTML report accepts (http/https), naming {trace_id} or {run_id}. */
export function traceUrlTemplate(value: string): string {
  try {
    checkTraceUrl(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  if (!value.includes('{trace_id}') && !value.includes('{run_id}')) throw new InvalidArgumentError('the template names neither {trace_id} nor {run_id}');
  return value;
}

/** An http(s) URL option (the Pushgateway's). */
function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('not an http(s) URL');
  return value;
}

/** The default folder does not exist: no instrumented run wrote there yet. How to check, in a few lines. */
const noTracesYet = (dir: string): string => `afterstop: ${dir}: no such folder, so no run instrumented by afterstop has written its traces here yet.
  Run the agent under the instrumentation: node --import afterstop/register app.js (it writes to ./afterstop-traces,
  or to AFTERSTOP_TRACES_DIR; with OTEL_EXPORTER_OTLP_ENDPOINT set, spans go to that collector instead).
  AFTERSTOP_DEBUG=1 names each package afterstop patched; a package at a version it does not support is named on stderr.
  Or give the trace files, folders or globs to read: afterstop leak-report PATH...
`;

/** `afterstop leak-report <paths...>`: what the agents did after Stop, from their traces. */
export function leakReportCommand(done: (code: Promise<ExitCode>) => void): Command {
  const command = new Command('leak-report')
    .description('read traces (files, folders, globs) into the store and report what went on after Stop')
    .argument('[paths...]', 'OTLP/JSON trace files, folders (also of Tempo blocks) or glob patterns (default: the folder the instrumentation writes, AFTERSTOP_TRACES_DIR or ./afterstop-traces)')
    .option('--db <folder>', 'the store that accumulates across runs, a folder (:memory: for a one-off)', DEFAULT_DB)
    .option(
      '--clickhouse <url>',
      "instead of paths: run the leak model inside this ClickHouse server (its HTTP interface, e.g. http://user:password@clickhouse:8123) over the OpenTelemetry Collector exporter's traces table",
      httpUrl,
    )
    .option('--table <name>', 'with --clickhouse: the traces table, as table or database.table', 'otel.otel_traces')
    .option('--prices <file>', 'a price table (JSON, docs/leak-report.md) whose models take its prices, over those of @pydantic/genai-prices')
    .option('--since <time>', 'runs that start at or after this time (ISO-8601, or an age like 24h, 7d)', (v) => parseTime(v))
    .option('--until <time>', 'runs that start before this time', (v) => parseTime(v))
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, json otherwise, or what --out ends with)').choices(REPORT_FORMATS))
    .option('--out <file>', 'write the report to this file (arrow: also <name>.findings.arrow) instead of stdout')
    .option('--trace-url <template>', 'link trace ids in the HTML report, e.g. http://tempo:3200/trace/{trace_id}', traceUrlTemplate)
    .option('--budget-ms <ms>', 'cancel-depth budget', nonNegativeNumber, 1000)
    .option('--findings <n>', 'at most this many findings in the report', nonNegativeNumber, 1000)
    .option('--top <n>', 'findings listed by the table and markdown formats', nonNegativeNumber, 10)
    .option('--timelines <n>', 'draw the runs of the worst findings against their Stop: in the HTML report (default 20), and with json in its timelines (default none)', nonNegativeNumber)
    .option('--no-progress', 'no progress on stderr')
    .option('--push-gateway <url>', 'push the figures as Prometheus metrics to this Pushgateway (replacing the last push of the same job and instance)', httpUrl)
    .option('--push-job <name>', 'the job label of the push', 'afterstop')
    .option('--push-instance <name>', 'the instance label of the push: one per nightly job (a host name would change from run to run and leave old reports behind)', 'default')
    .option('--prometheus-file <file>', "write the figures as Prometheus metrics for node_exporter's textfile collector")
    .option('--max-label-values <n>', 'distinct tools and models kept in the metrics (the rest as other)', nonNegativeNumber, 20);
  addBudgetOptions(command);
  command.option('--allow-empty', 'with budgets: a report with no agent run to judge (nothing read, or no run in the window) passes (exit 0) instead of exit 3');
  return command
    .addHelpText(
      'after',
      `
Examples:
  afterstop leak-report ./afterstop-traces
  afterstop leak-report 'traces/*.jsonl.gz' --since 24h --format markdown --out leaks.md
  afterstop leak-report ./traces --format html --out report.html --trace-url 'http://tempo:3200/trace/{trace_id}'
  afterstop leak-report ./traces --max-ghost-commits 0 --max-ghost-tax-usd 1 --max-cancel-ack-p95-ms 500
  afterstop leak-report ./traces --since 24h --push-gateway http://pushgateway:9091 --format json --out leaks.json
  afterstop leak-report ./traces --prometheus-file /var/lib/node_exporter/textfile/afterstop.prom
  afterstop leak-report --clickhouse http://clickhouse:8123 --table otel.otel_traces --since 24h
  afterstop explain 1                # the worst finding's run, drawn against its Stop

Exit codes: 0 all within budget, 1 a budget was exceeded (named on stderr), 3 budgets were given and there was nothing
to judge (no span read, or no agent run in the window; --allow-empty passes it), 2 bad usage, unreadable input, or a
failed export (push, metrics file), or a server (ClickHouse, Pushgateway) that did not answer in time.

AFTERSTOP_HTTP_DEADLINE_MS: each request to ClickHouse or the Pushgateway, its answer whole, within this
many ms (default 300000 for a ClickHouse statement, 10000 for a push).`,
    )
    .action((paths: string[], options: LeakReportOptions) => done(leakReport(paths, options)));
}

/** The report in a text format, or the Arrow files; `budgets`: their status, so that a figure over its budget says so. */
function render(report: LeakReport, format: ReportFormat, options: LeakReportOptions, color: boolean, budgets: readonly BudgetStatus[], generatedAt: Date | undefined): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(withVerdict(report, budgets), null, 2)}\n`;
    case 'markdown':
      return renderMarkdown(report, { findings: options.top, budgets });
    case 'html':
      return renderHtml(report, { budgets, ...(options.traceUrl !== undefined ? { traceUrl: options.traceUrl } : {}), ...(generatedAt !== undefined ? { generatedAt } : {}) });
    case 'table':
      return renderTerminal(report, { color, findings: options.top, budgets });
    case 'arrow':
      throw new Error('arrow is written as files');
  }
}

async function leakReport(paths: string[], options: LeakReportOptions): Promise<ExitCode> {
  const format = resolveFormat(options.format, options.out, process.stdout.isTTY === true);
  if (format === 'arrow' && options.out === undefined) {
    process.stderr.write('afterstop: --format arrow writes binary files: give --out FILE\n');
    return EXIT_USAGE;
  }
  let generatedAt: Date | undefined;
  try {
    generatedAt = sourceDateEpoch();
  } catch (error) {
    process.stderr.write(`afterstop: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  if (paths.length > 0 && options.clickhouse !== undefined) {
    process.stderr.write('afterstop: give trace paths, or --clickhouse URL (not both)\n');
    return EXIT_USAGE;
  }
  // No paths: the folder the instrumentation writes to by default.
  const tracesDir = defaultTracesDir();
  if (paths.length === 0 && options.clickhouse === undefined) paths = [tracesDir];
  if (paths.length === 1 && path.resolve(paths[0]!) === path.resolve(tracesDir) && !fs.existsSync(tracesDir)) {
    process.stderr.write(noTracesYet(paths[0]!));
    return EXIT_USAGE;
  }
  const progress = options.progress ? stderrProgress() : silentProgress;
  const source: ReportSource =
    options.clickhouse !== undefined
      ? clickhouseReportSource({ url: options.clickhouse, table: options.table })
      : traceFilesSource({ inputs: paths, db: options.db, trackProgress: options.progress && process.stderr.isTTY === true });
  let report: LeakReport;
  try {
    report = await source.report({
      ...(options.prices !== undefined ? { pricesFile: options.prices } : {}),
      ...(options.since !== undefined ? { since: options.since } : {}),
      ...(options.until !== undefined ? { until: options.until } : {}),
      budgetMs: options.budgetMs,
      findingsLimit: Math.floor(options.findings),
      // Timelines are drawn from the store's spans (DuckDB); the ClickHouse source gives none.
      // Only the HTML and the JSON show them.
      timelines: options.clickhouse !== undefined || (format !== 'html' && format !== 'json') ? 0 : Math.floor(options.timelines ?? (format === 'html' ? DEFAULT_TIMELINES : 0)),
      progress: (message, percentage) => progress.update(message, percentage),
    });
  } catch (error) {
    progress.done();
    return inputErrorExit(error);
  }
  progress.done();
  // Each budget judged once: the formats mark a figure over its budget, then stderr names it, and the metrics read the same status.
  const status = budgetStatus(report, options);

  if (format === 'arrow') {
    // apache-arrow is loaded for this format alone.
    const { findingsPath, renderArrow } = await import('../../render/arrow.js');
    const files = renderArrow(report);
    const out = options.out as string;
    writeFileAtomic(out, files.groups);
    writeFileAtomic(findingsPath(out), files.findings);
    process.stderr.write(`afterstop: wrote ${out} and ${findingsPath(out)}\n`);
  } else {
    const text = render(report, format, options, options.out === undefined && colorWanted(process.stdout), status, generatedAt);
    if (options.out !== undefined) {
      writeFileAtomic(options.out, text);
      process.stderr.write(`afterstop: wrote ${options.out}\n`);
    } else {
      process.stdout.write(text);
    }
  }

  printSkipped(report.input.skipped, ' (see input.skipped)', report.input.skipped_count);
  const future = futureRunsNote(report);
  if (future !== null) process.stderr.write(`afterstop: ${terminalLine(future)} (see evidence.future_runs)\n`);

  const broken = brokenOf(status);
  for (const b of broken) {
    process.stderr.write(
      b.reason !== undefined ? `afterstop: budget not passed: ${b.option} ${b.limit}, the report has ${b.actual} and ${b.reason}\n` : `afterstop: budget exceeded: ${b.option} ${b.limit}, the report has ${b.actual}\n`,
    );
  }
  // Nothing read is not nothing found: said on stderr too (a program may be reading stdout), and budgets are not passed on it.
  const nothing = report.evidence.note !== null;
  if (nothing && (options.out !== undefined || process.stdout.isTTY !== true)) process.stderr.write(`afterstop: nothing to judge: ${report.evidence.note}\n`);
  const judged = !nothing || options.allowEmpty === true || status.length === 0;
  if (!judged) process.stderr.write('afterstop: the budgets are not passed on a report with nothing to judge (exit 3); --allow-empty passes a night that may truly be empty\n');
  const exported = await exportMetrics(report, options, status);
  // A broken budget is what the nightly job is for: it wins over nothing to judge, and both over a failed export (all are on stderr).
  return broken.length > 0 ? EXIT_BUDGET : !judged ? EXIT_NOTHING_TO_JUDGE : exported ? EXIT_OK : EXIT_USAGE;
}

/** The metrics to the textfile and the Pushgateway; false when one of them failed (said on stderr). */
async function exportMetrics(report: LeakReport, options: LeakReportOptions, budgets: BudgetStatus[]): Promise<boolean> {
  const metrics = { maxLabelValues: Math.floor(options.maxLabelValues), budgets };
  let ok = true;
  if (options.prometheusFile === undefined && options.pushGateway === undefined) return ok;
  // prom-client is loaded only for a metrics export.
  const { pushReport, renderPrometheus } = await import('../../metrics/prometheus.js');
  const failed = (what: string, error: unknown): void => {
    ok = false;
    process.stderr.write(`afterstop: could not ${what}: ${redactSecrets(error instanceof Error ? error.message : String(error))}\n`);
  };
  if (options.prometheusFile !== undefined) {
    try {
      writeFileAtomic(options.prometheusFile, await renderPrometheus(report, metrics));
      process.stderr.write(`afterstop: wrote ${options.prometheusFile}\n`);
    } catch (error) {
      failed(`write the metrics to ${options.prometheusFile}`, error);
    }
  }
  if (options.pushGateway !== undefined) {
    try {
      await pushReport(options.pushGateway, report, { ...metrics, job: options.pushJob, instance: options.pushInstance });
      process.stderr.write(`afterstop: pushed the metrics to ${redactUrl(options.pushGateway)}\n`);
    } catch (error) {
      failed(`push the metrics to ${redactUrl(options.pushGateway)}`, error);
    }
  }
  return ok;
}
