import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LeakReport } from '../../analyzer/index.js';
import type { EffectRecord, Simulator } from '../../analyzer/simulator/index.js';
import { appEnv } from '../../scorecard/run-app.js';
import { startTracedService } from '../../scorecard/traced-service.js';
import { runCli } from './cli.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

/**
 * The far side's witness (issue 49), end to end: an agent app under `--import afterstop/register` and a real
 * OpenTelemetry-instrumented service in its own process (test/fixtures/witness/traced-service.mjs), its clock
 * shifted by libfaketime, both exporting OTLP/HTTP to one receiver that writes the file the report reads (as a
 * Collector's file exporter would); the service forwards each effect it makes to the simulator, whose ledger is the
 * ground truth.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WITNESS_FIXTURES = path.join(ROOT, 'test', 'fixtures', 'witness');

export { clockShift, LIBFAKETIME, startTracedService, type ServiceProcess } from '../../scorecard/traced-service.js';

export interface WitnessRun {
  /** The app's last stdout line. */
  out: { stopNs?: string; warmUp?: unknown; error?: string };
  code: number | null;
  stderr: string;
  report: LeakReport;
  /** The effects the run's service made (or gave up), from the simulator's ledger. */
  effects: EffectRecord[];
  /** Effects committed after the app's Stop: the ghost commits that really happened. */
  ghostsInTruth: number;
  /** The receiver's file: what the report read. */
  file: string;
  receiver: OtlpReceiver;
}

export interface WitnessOptions {
  sim: Simulator;
  /** A fresh folder for the run's files. */
  dir: string;
  app: string;
  /** The app's environment (its scenario). */
  env?: Record<string, string>;
  /** libfaketime's offset for the service's clock. */
  shift?: string;
  traced?: boolean;
}

/** Run `app` (under afterstop/register) against a traced service, then leak-report over the receiver's file. */
export async function runWitness(options: WitnessOptions): Promise<WitnessRun> {
  const { sim, dir } = options;
  const file = path.join(dir, 'traces.jsonl');
  const receiver = await startOtlpReceiver({ file });
  const service = await startTracedService({
    root: ROOT,
    simUrl: sim.url,
    otlpUrl: receiver.url,
    outbox: path.join(dir, 'outbox'),
    ...(options.shift !== undefined ? { shift: options.shift } : {}),
    ...(options.traced !== undefined ? { traced: options.traced } : {}),
  });
  const effectsBefore = sim.ledger.effects.length;
  try {
    const child = spawn(process.execPath, ['--import', 'afterstop/register', options.app], {
      cwd: ROOT,
      env: appEnv({ SIM_URL: sim.url, EFFECTS_URL: service.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'support-agent', ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // The service's work is done and its spans exported; then the simulator's ledger is complete.
    await service.idle();
    await sim.idle();
    await service.stop();
    let out: WitnessRun['out'] = {};
    try {
      out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as WitnessRun['out'];
    } catch {
      // the app failed before its last line: `code` and `stderr` say why
    }
    const cli = await runCli(['leak-report', file, '--db', ':memory:', '--format', 'json', '--no-progress', '--timelines', '5']);
    if (cli.status !== 0) throw new Error(`leak-report exited ${cli.status}: ${cli.stderr}`);
    const report = JSON.parse(cli.stdout) as LeakReport;
    const effects = sim.ledger.effects.slice(effectsBefore);
    const stop = out.stopNs === undefined ? undefined : BigInt(out.stopNs);
    const ghostsInTruth = stop === undefined ? 0 : effects.filter((e) => e.committedNs !== null && e.committedNs > stop).length;
    return { out, code, stderr: stderr + service.stderr(), report, effects, ghostsInTruth, file, receiver };
  } finally {
    await service.stop();
    await receiver.close();
  }
}

/** The lines of the receiver's file, as the report reads them: each an OTLP/JSON export request. */
export const fileLines = (file: string): unknown[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
