/**
 * `npm run bench`: every benchmark, as one table of ratios against baselines
 * measured in the same run. Progress goes to stderr, the table to stdout.
 *   --json FILE  where the results go as JSON (default .bench-out/bench.json)
 *   --doc FILE   also write FILE's table from that JSON, and the JSON beside it
 *                (docs/benchmarks.md: docs/benchmarks.json)
 *   --only RE    run only the sections whose name matches the regular expression RE
 *                (tool-call, live-metrics, guard, sdk-stream, register-startup, install-size, collector-faults,
 *                collector-exit, stop-burst, stop-markers, hung-exit, analyzer, clickhouse, large-inputs); with
 *                --doc, its rows replace those of the doc's JSON, the others stay
 * BENCH_SPANS (default 1000000,10000000) sets the analyzer's sizes, and ClickHouse's (BENCH_CLICKHOUSE_ROUNDS
 * alternating rounds each, default 3).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { memoryLimitSetting } from '@afterstop/analyzer';
import { benchAnalyzer, type AnalyzerBench } from './analyzer.js';
import { benchClickHouse, type ClickHouseBench } from './clickhouse.js';
import { benchCollectorFaults, benchRefusedExit, FAULTS } from './collector-faults.js';
import { growthRow, mergeResults, renderTable, ratioRow, valueRow, type BenchResults, type BenchRow } from './results.js';
import { benchSdkStream } from './sdk-stream.js';
import { benchRegisterStartup } from './register-startup.js';
import { benchInstallSize, INSTALL_LIMIT_BYTES } from './install-size.js';
import { benchHungCollector, benchStopBurst, benchStopMarkers } from './stop-burst.js';
import { benchLiveMetrics } from './live-metrics.js';
import { benchGuard } from './guard.js';
import { benchLargeInputs } from './large-inputs.js';
import { benchToolCall } from './tool-call.js';
import { writeDoc } from './write-doc.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const work = path.resolve(process.env['BENCH_DIR'] ?? '.bench-out');
const jsonFile = path.resolve(arg('--json') ?? path.join(work, 'bench.json'));
const docFile = arg('--doc');
const startedAt = Date.now();
const progress = (what: string): void => void process.stderr.write(`bench: ${what}...\n`);
const rows: BenchRow[] = [];
const details: Record<string, unknown> = {};
const only = arg('--only');
/** Whether the section `name` runs (all of them without --only). */
const want = (name: string): boolean => only === undefined || new RegExp(only).test(name);

if (want('tool-call')) {
  progress('one tool call');
  const tool = await benchToolCall();
  details['toolCall'] = tool;
  for (const [id, f, what] of [
    ['tool-call', tool.hotPath, 'cost to the caller'],
    ['tool-call-with-export', tool.withExport, 'with the export of its spans'],
  ] as const) {
    // Against the contract's floor: afterstop's own code over a bare span carrying what SEMCONV.md requires of a tool span.
    rows.push(
      ratioRow(
        {
          id,
          work: `one tool call, run.tool(), ${what} (median of ${tool.rounds} × ${tool.iterations})`,
          value: f.afterstopNs,
          unit: 'ns',
          baseline: 'the contract floor: a bare span with the attributes SEMCONV.md requires of a tool span',
          baselineValue: f.contractSpanNs,
          peakRssMb: null,
        },
        1.1,
      ),
    );
    // The floor itself, against a bare span of three attributes: what the contract costs, whoever writes the span.
    rows.push(
      ratioRow(
        {
          id: `${id}-contract-floor`,
          work: `the same, the contract floor (a bare span with the attributes SEMCONV.md requires of a tool span, no afterstop code)`,
          value: f.contractSpanNs,
          unit: 'ns',
          baseline: 'a bare OpenTelemetry span',
          baselineValue: f.bareSpanNs,
          peakRssMb: null,
        },
        null,
      ),
    );
  }
}

if (want('live-metrics')) {
  progress('one tool call with the live metrics on and off');
  const live = await benchLiveMetrics();
  details['liveMetrics'] = live;
  rows.push(
    ratioRow(
      {
        id: 'tool-call-live-metrics',
        work: `one tool call, run.tool(), a MeterProvider registered (the live metrics on), median of ${live.rounds} × ${live.iterations}`,
        value: live.toolCall.onNs,
        unit: 'ns',
        baseline: 'the same call, no MeterProvider',
        baselineValue: live.toolCall.offNs,
        peakRssMb: null,
      },
      1.05,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: 'tool-call-live-metrics-stopped',
        work: 'the same, a tool call of a stopped run ending late (an orphaned call recorded)',
        value: live.stoppedToolCall.onNs,
        unit: 'ns',
        baseline: 'the same call, no MeterProvider',
        baselineValue: live.stoppedToolCall.offNs,
        peakRssMb: null,
      },
      null,
    ),
  );
}

if (want('guard')) {
  progress('one tool call with a side effect, the guard on and off');
  const guardLoopback = await benchGuard(1_000, 11, 0);
  const guardService = await benchGuard(300, 11, 2);
  details['guard'] = { loopback: guardLoopback, service: guardService };
  for (const [r, target] of [
    [guardLoopback, null],
    [guardService, 1.05],
  ] as const) {
    const where = r.replyDelayMs === 0 ? 'a local service answering at once (the guard laid bare)' : `a local service answering in ${r.replyDelayMs} ms (a fast real one)`;
    for (const [via, f] of [
      ['fetch', r.fetch],
      ['node:http', r.http],
    ] as const) {
      rows.push(
        ratioRow(
          {
            id: `tool-call-guard-${via === 'fetch' ? 'fetch' : 'http'}${r.replyDelayMs === 0 ? '-loopback' : ''}`,
            work: `one tool call POSTing through ${via} to ${where}, the guard on (commit fence, an idempotency key added: ${r.keyed.withKey} of ${r.keyed.whileOn} requests keyed; ${Math.round((f.onNs - f.offNs) / 1000)} µs a call), median of ${r.rounds} × ${r.iterations}`,
            value: f.onNs,
            unit: 'ns',
            baseline: 'the same call, the guard off',
            baselineValue: f.offNs,
            peakRssMb: null,
          },
          target,
        ),
      );
    }
  }
}

if (want('sdk-stream'))
  for (const client of ['openai', 'ai-sdk'] as const) {
    progress(`a streamed ${client} call`);
    const r = await benchSdkStream(client);
    details[client === 'openai' ? 'sdkStream' : 'aiSdkStream'] = r;
    const what = client === 'openai' ? 'a streamed model call of 1,000 chunks, openai client' : 'an AI SDK streamText turn (a tool call, 1,000 chunks)';
    rows.push(ratioRow({ id: `${client}-stream`, work: `${what}, under afterstop/register`, value: r.instrumentedMsPerCall, unit: 'ms', baseline: 'bare', baselineValue: r.bareMsPerCall, peakRssMb: null }, 1.05));
    rows.push(ratioRow({ id: `${client}-stream-cpu`, work: `${what}, client CPU`, value: r.instrumentedCpuMsPerCall, unit: 'ms', baseline: 'bare', baselineValue: r.bareCpuMsPerCall, peakRssMb: null }, null));
  }

if (want('register-startup')) {
  progress('startup under afterstop/register and a bare NodeSDK');
  const startup = await benchRegisterStartup();
  details['registerStartup'] = startup;
  rows.push(
    ratioRow(
      {
        id: 'register-startup',
        work: `node --import afterstop/register -e '' (the file exporter; ${startup.afterstop.modules} module files loaded), wall time, median of ${startup.runs} paired runs`,
        value: startup.afterstop.ms,
        unit: 'ms',
        baseline: `a bare NodeSDK started (no instrumentations, metric readers or log processors; ${startup.bareNodeSdk.modules} module files)`,
        baselineValue: startup.bareNodeSdk.ms,
        peakRssMb: null,
      },
      1.1,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: 'register-startup-cpu',
        work: `the same, CPU time of the process (all threads), median of ${startup.runs} paired runs`,
        value: startup.afterstop.cpuMs,
        unit: 'ms',
        baseline: 'a bare NodeSDK started',
        baselineValue: startup.bareNodeSdk.cpuMs,
        peakRssMb: null,
      },
      null,
    ),
  );
}

if (want('install-size')) {
  progress('the packed instrumentation installed into a fresh project (npm, from the registry)');
  const install = benchInstallSize();
  details['installSize'] = install;
  const beside = install.beside
    .filter((b) => b.install.length > 1)
    .map((b) => `${b.install.slice(1).join(' ')}: ${b.ok ? `resolved, ${b.apiCopies} API` : 'ERESOLVE'}`)
    .join('; ');
  rows.push(
    valueRow(
      {
        id: 'install-size',
        work: `the packed afterstop (with @afterstop/span-contract) installed alone into a fresh project: bytes on disk, ${install.packages} packages, ${install.natives.length} native binaries; beside it without --force: ${beside}`,
        value: install.bytesOnDisk / 1e6,
        unit: 'MB',
        baseline: 'the limit',
        baselineValue: INSTALL_LIMIT_BYTES / 1e6,
        peakRssMb: null,
      },
      { text: `< ${INSTALL_LIMIT_BYTES / 1e6} MB, no native binary, every framework resolved`, met: (v) => v * 1e6 < INSTALL_LIMIT_BYTES && install.natives.length === 0 && install.beside.every((b) => b.ok) },
    ),
  );
}

if (want('collector-faults')) {
  progress('an agent loop exporting to collectors in trouble');
  const faults = await benchCollectorFaults();
  details['collectorFaults'] = faults;
  const healthy = faults.byFault.healthy;
  // The first export runs Node's HTTP client cold (no floor in the app alone): shown against the app, no target.
  rows.push(
    ratioRow(
      {
        id: 'exporter-pause',
        work: `longest event-loop pause, an agent loop exporting over OTLP/HTTP, its first export included (median of ${faults.rounds} × ${faults.runs} runs)`,
        value: healthy.maxLoopDelayMs,
        unit: 'ms',
        baseline: 'the app without afterstop',
        baselineValue: faults.bare.maxLoopDelayMs,
        peakRssMb: healthy.peakRssMb,
      },
      null,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: 'exporter-pause-steady',
        work: 'longest event-loop pause, the same loop from its 100th run on (past the first export)',
        value: healthy.steadyMaxLoopDelayMs,
        unit: 'ms',
        baseline: 'the app without afterstop, from its 100th run on',
        baselineValue: faults.bare.steadyMaxLoopDelayMs,
        peakRssMb: healthy.peakRssMb,
      },
      1.1,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: 'exporter-pause-export-off',
        work: 'longest event-loop pause, the same loop exporting, against afterstop with its export off (OTEL_TRACES_EXPORTER=none)',
        value: healthy.maxLoopDelayMs,
        unit: 'ms',
        baseline: 'afterstop loaded, nothing exported',
        baselineValue: faults.exportOff.maxLoopDelayMs,
        peakRssMb: faults.exportOff.peakRssMb,
      },
      null,
    ),
  );
  rows.push(
    ratioRow(
      { id: 'collector-healthy', work: 'time per run, a healthy collector', value: healthy.msPerRun, unit: 'ms', baseline: 'the app without afterstop', baselineValue: faults.bare.msPerRun, peakRssMb: healthy.peakRssMb },
      null,
    ),
  );
  for (const f of FAULTS.filter((x) => x !== 'healthy')) {
    const t = faults.byFault[f];
    rows.push(
      ratioRow(
        {
          id: `collector-${f}`,
          work: `time per run, a collector that ${({ '500': 'answers 500', reset: 'resets every connection', hang: 'never answers', down: 'is not there' } as const)[f]} (${t.dropped} spans dropped)`,
          value: t.msPerRun,
          unit: 'ms',
          baseline: 'a healthy collector',
          baselineValue: healthy.msPerRun,
          peakRssMb: t.peakRssMb,
        },
        null,
      ),
    );
  }
}

if (want('collector-exit')) {
  progress('exit with a collector that refuses connections');
  const refused = await benchRefusedExit();
  details['refusedExit'] = refused;
  rows.push(
    ratioRow(
      {
        id: 'exit-collector-refused',
        work: `a process's wall time, ${refused.runs} runs Stopped, no shutdown(), a collector that refuses connections (ECONNREFUSED), median of ${refused.rounds}`,
        value: refused.refusedMs,
        unit: 'ms',
        baseline: "the same script, afterstop's export off",
        baselineValue: refused.baselineMs,
        peakRssMb: null,
      },
      null,
    ),
  );
}

if (want('stop-burst')) {
  progress('a burst of Stops');
  const burst = await benchStopBurst();
  details['stopBurst'] = burst;
  rows.push(
    valueRow(
      {
        id: 'stop-burst',
        work: `spans written, ${burst.runs} concurrent runs Stopped at once, the file exporter`,
        value: burst.spansWritten,
        unit: 'spans',
        baseline: 'spans made',
        baselineValue: burst.spans,
        peakRssMb: null,
      },
      { text: `all ${burst.spans}`, met: (v) => v === burst.spans },
    ),
  );
}

if (want('stop-markers')) {
  for (const exporter of ['otlp', 'file'] as const) {
    for (const runs of [2_000, 10_000]) {
      progress(`${runs} Stops at once, ${exporter}`);
      const f = await benchStopMarkers(runs, exporter);
      details[`stopMarkers-${exporter}-${runs}`] = f;
      const to = exporter === 'otlp' ? 'a healthy local OTLP/HTTP collector' : 'the file exporter, a healthy disk';
      rows.push(
        valueRow(
          {
            id: `stop-markers-${exporter}-${runs}`,
            work: `Stop markers kept: ${f.stopsKept} of ${f.stops}; ${runs} runs with a tool in flight Stopped in the same tick, ${to} (spans dropped, all kinds: ${f.spansDropped} of ${f.stops + f.others}; failed exports ${f.failedExports})`,
            value: f.stopsKept,
            unit: 'spans',
            baseline: 'Stop markers made',
            baselineValue: f.stops,
            peakRssMb: null,
          },
          { text: `all ${f.stops}`, met: (v) => v === f.stops },
        ),
      );
    }
  }
}

if (want('hung-exit'))
  for (const runs of [5_000, 100_000]) {
    progress(`${runs} Stops against a hung collector`);
    const hung = await benchHungCollector(runs);
    details[`hungCollector${runs}`] = hung;
    rows.push(
      ratioRow(
        {
          id: `hung-exit-${runs}`,
          work: `exit after the work, ${runs} runs Stopped, a collector that never answers, no shutdown()`,
          value: hung.exitAfterWorkMs,
          unit: 'ms',
          baseline: "the app's work",
          baselineValue: hung.workMs,
          peakRssMb: null,
        },
        null,
      ),
    );
  }

// The analyzer: BENCH_SPANS (default 1,000,000 and 10,000,000) generated spans, each in its own process.
/** BENCH_SPANS: the analyzer's and ClickHouse's sizes. */
const benchSizes = (process.env['BENCH_SPANS'] ?? '1000000,10000000').split(',').map(Number);
const sizes = want('analyzer') ? benchSizes : [];
const analyzer: AnalyzerBench[] = sizes.map((n) => {
  progress(`the analyzer over ${n} spans`);
  return benchAnalyzer(n, work);
});
if (sizes.length > 0) {
  details['analyzer'] = analyzer;
  details['memoryLimit'] = memoryLimitSetting();
}
const spans = (n: number): string => n.toLocaleString('en-US');
for (const a of analyzer) {
  // Against the floor: DuckDB keeping the same read in a database file, with no leak model (bench/analyzer.ts).
  rows.push(
    ratioRow(
      {
        id: `ingest-report-${a.spans}`,
        work: `ingest + report, cold, ${spans(a.spans)} spans of OTLP/JSON (${a.inputMb.toFixed(0)} MB)`,
        value: a.cold.seconds,
        unit: 's',
        baseline: 'the bare typed read_json kept in a DuckDB database file (no leak model)',
        baselineValue: a.bareReadIntoFile.seconds,
        peakRssMb: a.cold.peakRssMb,
      },
      1.3,
    ),
  );
  // What keeping costs the engine itself: the floor against the same read held in memory.
  rows.push(
    ratioRow(
      {
        id: `bare-read-into-file-${a.spans}`,
        work: `the floor: the same bare read_json kept in a DuckDB database file (the engine's own cost of keeping what it read)`,
        value: a.bareReadIntoFile.seconds,
        unit: 's',
        baseline: 'the bare typed read_json, in memory',
        baselineValue: a.bareRead.seconds,
        peakRssMb: a.bareReadIntoFile.peakRssMb,
      },
      null,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: `bare-read-into-parquet-${a.spans}`,
        work: `the same bare read_json kept as Parquet (no leak model)`,
        value: a.bareReadIntoParquet.seconds,
        unit: 's',
        baseline: 'a bare typed read_json',
        baselineValue: a.bareRead.seconds,
        peakRssMb: a.bareReadIntoParquet.peakRssMb,
      },
      null,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: `report-store-${a.spans}`,
        work: `report from the store, ${spans(a.spans)} spans (${a.parquetMb.toFixed(0)} MB of Parquet)`,
        value: a.warm.seconds,
        unit: 's',
        baseline: "a bare scan of the store's Parquet",
        baselineValue: a.bareScan.seconds,
        peakRssMb: a.warm.peakRssMb,
      },
      2,
    ),
  );
}
const largest = analyzer[analyzer.length - 1];
if (largest !== undefined) {
  const peak = Math.max(largest.cold.peakRssMb, largest.warm.peakRssMb);
  const atTen = largest.spans >= 10_000_000;
  rows.push(
    valueRow(
      {
        id: 'analyzer-peak-memory',
        work: `peak memory, ingest or report, ${spans(largest.spans)} spans`,
        value: peak,
        unit: 'MB',
        baseline: 'the bare read_json',
        baselineValue: largest.bareRead.peakRssMb,
        peakRssMb: peak,
      },
      atTen ? { text: '< 1024 MB', met: (v) => v < 1024 } : { text: '< 1024 MB at 10,000,000 (not measured)', met: () => false },
    ),
  );
}
if (analyzer.length > 1) {
  const [small, large] = [analyzer[0]!, largest!];
  rows.push(growthRow('growth-ingest', 'ingest + report', { spans: small.spans, seconds: small.cold.seconds }, { spans: large.spans, seconds: large.cold.seconds }));
  rows.push(growthRow('growth-report', 'report from the store', { spans: small.spans, seconds: small.warm.seconds }, { spans: large.spans, seconds: large.warm.seconds }));
}

// The leak model inside ClickHouse (bench/clickhouse.ts): chdb over the exporter's table, at the analyzer's sizes.
const clickhouseSizes = want('clickhouse') ? benchSizes : [];
const clickhouse: ClickHouseBench[] = [];
for (const n of clickhouseSizes) {
  progress(`the leak model inside ClickHouse (chdb) over ${n} spans`);
  clickhouse.push(await benchClickHouse(n, work, Number(process.env['BENCH_CLICKHOUSE_ROUNDS'] ?? 3)));
}
if (clickhouse.length > 0) details['clickhouse'] = clickhouse;
for (const c of clickhouse) {
  const keys = c.columnsRead.reduce((n, r) => n + r.keys.length, 0);
  rows.push(
    ratioRow(
      {
        id: `clickhouse-report-${c.spans}`,
        work: `the leak report inside ClickHouse (chdb, on disk), ${spans(c.spans)} spans in the exporter's otel_traces (${c.load.tableMb.toFixed(0)} MB), through ClickHouseSource, median of ${c.rounds} alternating rounds`,
        value: c.report.seconds,
        unit: 's',
        baseline: `a bare scan of what the model reads (${c.columnsRead.length} columns, ${keys} keys of their maps)`,
        baselineValue: c.floor.seconds,
        peakRssMb: c.report.peakRssMb,
      },
      2,
    ),
  );
  rows.push(
    ratioRow(
      {
        id: `clickhouse-report-cpu-${c.spans}`,
        work: `the same, CPU time of the process (all of ClickHouse's threads): less moved than wall time by other work on the machine`,
        value: c.report.cpuSeconds,
        unit: 's',
        baseline: 'the bare scan',
        baselineValue: c.floor.cpuSeconds,
        peakRssMb: null,
      },
      null,
    ),
  );
}
if (clickhouse.length > 1) {
  const [small, large] = [clickhouse[0]!, clickhouse[clickhouse.length - 1]!];
  rows.push(growthRow('growth-clickhouse-report', 'the leak report inside ClickHouse', { spans: small.spans, seconds: small.report.seconds }, { spans: large.spans, seconds: large.report.seconds }));
}

// Inputs that grow in one direction (bench/large-inputs.ts): each at a small and a large size.
if (want('large-inputs')) {
  progress('large inputs: explain of a long run, many files, a long line');
  const large = benchLargeInputs(path.join(work, 'large-inputs'));
  details['largeInputs'] = large;
  const [fewCalls, manyCalls] = [large.explain[0], large.explain[large.explain.length - 1]];
  if (fewCalls !== undefined && manyCalls !== undefined && manyCalls !== fewCalls) {
    const scale = manyCalls.calls / fewCalls.calls;
    rows.push(
      ratioRow(
        {
          id: `explain-${manyCalls.calls}-calls`,
          work: `afterstop explain --format html, one run of ${spans(manyCalls.calls)} tool calls (linear: ${scale.toFixed(0)}× the ${spans(fewCalls.calls)})`,
          value: manyCalls.measured.seconds,
          unit: 's',
          baseline: `the same, ${spans(fewCalls.calls)} calls`,
          baselineValue: fewCalls.measured.seconds,
          peakRssMb: manyCalls.measured.peakRssMb,
        },
        scale * 1.5,
      ),
    );
  }
  const [fewFiles, manyFilesRow] = [large.manyFiles[0], large.manyFiles[large.manyFiles.length - 1]];
  if (fewFiles !== undefined && manyFilesRow !== undefined && manyFilesRow !== fewFiles) {
    rows.push(
      ratioRow(
        {
          id: `many-files-${manyFilesRow.files}-memory`,
          work: `leak-report, ${spans(manyFilesRow.files)} one-span files: peak memory (the cost per file bounded: about that of the same spans in one file)`,
          value: manyFilesRow.measured.peakRssMb,
          unit: 'MB',
          baseline: `the same ${spans(large.oneFile.spans)} spans in one file`,
          baselineValue: large.oneFile.measured.peakRssMb,
          peakRssMb: manyFilesRow.measured.peakRssMb,
        },
        1.5,
      ),
    );
    rows.push(
      ratioRow(
        {
          id: `many-files-${manyFilesRow.files}-memory-growth`,
          work: `the same, against ${spans(fewFiles.files)} files (the spans' own cost grows with them)`,
          value: manyFilesRow.measured.peakRssMb,
          unit: 'MB',
          baseline: `${spans(fewFiles.files)} files`,
          baselineValue: fewFiles.measured.peakRssMb,
          peakRssMb: null,
        },
        null,
      ),
    );
    rows.push(
      ratioRow(
        {
          id: `many-files-${manyFilesRow.files}-time`,
          work: `leak-report, ${spans(manyFilesRow.files)} one-span files: time (linear: ${(manyFilesRow.files / fewFiles.files).toFixed(0)}×)`,
          value: manyFilesRow.measured.seconds,
          unit: 's',
          baseline: `the same, ${spans(fewFiles.files)} files`,
          baselineValue: fewFiles.measured.seconds,
          peakRssMb: null,
        },
        null,
      ),
    );
  }
  rows.push(
    valueRow(
      {
        id: `long-line-${large.longLine.mb}mib`,
        work: `leak-report over a file with a line of ${large.longLine.mb} MiB among valid ones: the line named and skipped, the rest reported (exit 0)`,
        value: large.longLine.measured.peakRssMb,
        unit: 'MB',
        baseline: 'none',
        baselineValue: null,
        peakRssMb: large.longLine.measured.peakRssMb,
      },
      { text: 'exit 0, < 1024 MB', met: (v) => large.longLine.measured.status === 0 && v < 1024 },
    ),
  );
}

const results: BenchResults = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  spans: sizes,
  minutes: (Date.now() - startedAt) / 60_000,
  rows,
  details,
};
fs.mkdirSync(path.dirname(jsonFile), { recursive: true });
fs.writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${renderTable(results)}\n`);
process.stderr.write(`bench: wrote ${jsonFile}\n`);
/** Write into `jsonFile` the doc's record `docJson` with this partial run's rows (mergeResults). */
function mergeInto(jsonFile: string, docJson: string, partial: BenchResults): void {
  if (!fs.existsSync(docJson)) return;
  const earlier = JSON.parse(fs.readFileSync(docJson, 'utf8')) as BenchResults;
  fs.writeFileSync(jsonFile, `${JSON.stringify(mergeResults(earlier, partial, only ?? ''), null, 2)}\n`);
}
if (docFile !== undefined) {
  // A partial run (--only): its rows replace those of the doc's record, the others stay as measured then.
  if (only !== undefined) mergeInto(jsonFile, docFile.replace(/\.md$/, '.json'), results);
  writeDoc(jsonFile, docFile);
}
