/**
 * `npm start`: a demo agent with cancellations writes traces locally.
 *
 * It starts the local model and side-effect simulator, runs a support agent
 * written with afterstop's manual API for five turns (two of them stopped by
 * the user), writes the spans to ./afterstop-traces/, prints what
 * afterstop recorded beside what really happened (the simulator's ledger),
 * says fact by fact whether they agree (agreement.ts), and ends with the leak
 * report over those traces.
 */
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { analyze, colorWanted, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, readTraces, renderTerminal, type ExitCode, type FlatSpan, type LeakReport } from '@afterstop/analyzer';
import { defaultTracesDir } from '@afterstop/span-contract';
import { exportStats, flush, setup, shutdown } from 'afterstop';
import { startSimulator, type LedgerSnapshot } from '@afterstop/analyzer/simulator';
import { DemoAgent, type TurnResult } from './agent.js';
import { commitMarkOf, compareWithLedger, formatComparison, stopOfRun, type Comparison } from './agreement.js';

const ms = (ns: bigint): string => `${(Number(ns) / 1e6).toFixed(0)} ms`;

export interface DemoResult {
  tracesDir: string;
  turns: TurnResult[];
  spans: FlatSpan[];
  session: string;
  /** leak-report over this demo's runs. */
  report: LeakReport;
  /** What really happened: the simulator's ledger. */
  ledger: LedgerSnapshot;
  /** afterstop's record against the ledger, fact by fact. */
  comparisons: Comparison[];
}

export async function runDemo(tracesDir = defaultTracesDir()): Promise<DemoResult> {
  const started = new Date();
  const sim = await startSimulator({ tokenDelayMs: 15 });
  setup({ serviceName: 'afterstop-demo', tracesDir });
  const session = randomUUID().slice(0, 8);
  const common = { providerUrl: sim.url, effectsUrl: sim.url, emailDelayMs: 600 };
  const naive = new DemoAgent({ ...common, conversationId: `demo-${session}-email` });
  const chatty = new DemoAgent({ ...common, conversationId: `demo-${session}-essay` });
  const turns: TurnResult[] = [];
  const say = (line: string): void => console.log(line);
  try {
    say(`afterstop demo: a support agent against a local model at ${sim.url}`);
    const steps: [string, DemoAgent, string, Parameters<DemoAgent['turn']>[1]][] = [
      ['asks where an order is', naive, 'Where is my order 42? [[tokens:30]]', {}],
      ['asks to e-mail the customer; Stop 200 ms into send_email', naive, 'E-mail the customer that it shipped. [[tool:send_email {"to":"alice@example.com"}]]', { stopAfterToolStartMs: 200 }],
      ['says "go on" (history still has the unanswered call)', naive, 'Sorry, go on. [[tokens:10]]', {}],
      ['says "go on" again, after repairing the history', naive, 'Go on. [[tokens:10]]', {}],
      ['asks for a long answer; Stop 400 ms into the stream', chatty, 'Explain our refund policy in detail. [[tokens:200]]', { stopAfterMs: 400 }],
    ];
    for (const [index, [what, agent, text, options]] of steps.entries()) {
      if (index === 3) (agent as unknown as { options: { repairHistory: boolean } }).options.repairHistory = true;
      const result = await agent.turn(text, options);
      turns.push(result);
      say(`  turn ${index + 1}: the user ${what} -> ${result.outcome}${result.error ? ` (${result.error.slice(0, 80)})` : ''}`);
    }
    await naive.drain();
    await chatty.drain();
    await sim.idle();
  } finally {
    await flush();
    const stats = exportStats();
    await shutdown();
    await sim.close();
    if (stats.dropped > 0) say(`  (afterstop dropped ${stats.dropped} spans)`);
  }

  const read = await readTraces(tracesDir);
  const spans = read.spans.filter((s) => String(s.attributes['gen_ai.conversation.id'] ?? '').startsWith(`demo-${session}`));
  const cancels = spans.filter((s) => s.name === 'afterstop.cancel.request');
  const acks = spans.filter((s) => s.name === 'afterstop.cancel.ack');
  const commits = spans.filter((s) => s.name === 'afterstop.tool.commit' && s.attributes['afterstop.cancel.state'] !== 'none');
  const models = spans.filter((s) => s.attributes['afterstop.model.output_tokens_after_cancel'] !== undefined);
  const repairs = spans.filter((s) => s.name === 'afterstop.history.repair');

  say(`\nWhat afterstop recorded (${spans.length} spans in ${tracesDir}/):`);
  for (const cancel of cancels) {
    const ack = acks.find((a) => a.attributes['afterstop.run.id'] === cancel.attributes['afterstop.run.id']);
    say(`  Stop in run ${String(cancel.attributes['afterstop.run.id'])}: acknowledged ${ack ? `after ${(Number(ack.startNs - cancel.startNs) / 1e6).toFixed(1)} ms` : 'never'}`);
  }
  for (const commit of commits) {
    const cancel = stopOfRun(cancels, commit);
    say(`  ghost commit: ${String(commit.attributes['gen_ai.tool.name'])} committed ${cancel ? ms(commit.startNs - cancel.startNs) : '?'} after Stop (run state: ${String(commit.attributes['afterstop.cancel.state'])})`);
  }
  for (const model of models) {
    say(`  model stream after Stop: ${String(model.attributes['afterstop.model.output_tokens_after_cancel'])} output tokens arrived after Stop`);
  }
  for (const repair of repairs) say(`  history repaired: ${JSON.stringify(repair.attributes['afterstop.repair.tool_call_ids'])}`);
  const failed = turns.filter((t) => t.outcome === 'failed');
  for (const turn of failed) say(`  the turn after Stop failed: ${turn.error?.slice(0, 100) ?? ''}`);

  say("\nWhat really happened (the simulator's ledger):");
  for (const effect of sim.ledger.effects) {
    // The Stop of the run whose tool asked for it (its Idempotency-Key), not whichever Stop came last.
    const mark = commitMarkOf(commits, effect);
    const before = (mark ? stopOfRun(cancels, mark) : undefined)?.startNs;
    say(
      `  ${effect.name}: ${effect.outcome}${effect.committedNs !== null && before !== undefined && before <= effect.committedNs ? `, ${ms(effect.committedNs - before)} after Stop` : ''}${effect.clientClosedBeforeCommit ? ' (the client had gone)' : ''}`,
    );
  }
  for (const request of sim.ledger.modelRequests.filter((r) => r.clientClosedEarly)) {
    say(`  model request closed early: ${request.outputTokensGenerated} output tokens billed, ${request.outputTokensSent} sent`);
  }
  say('\nDo they agree? (afterstop beside the ledger, fact by fact)');
  const comparisons = compareWithLedger(spans, sim.ledger);
  for (const comparison of comparisons) say(`  ${formatComparison(comparison)}`);
  const disagreements = comparisons.filter((c) => c.verdict === 'DISAGREE').length;
  const agreeing = comparisons.filter((c) => c.verdict === 'agree').length;
  say(
    disagreements === 0
      ? `  ${comparisons.length} facts compared: ${agreeing} agree, ${comparisons.length - agreeing} ${comparisons.length - agreeing === 1 ? 'differs' : 'differ'} for the reasons given, none disagree`
      : `  ${disagreements} of ${comparisons.length} facts DISAGREE: afterstop's record and the ledger part where nothing explains it (please report it)`,
  );
  // What a nightly job would print: leak-report over the traces, for this demo's runs.
  const report = await analyze({ inputs: [tracesDir], db: ':memory:', since: started });
  say(`\n${renderTerminal(report, { color: colorWanted(process.stdout) })}`);
  say(`Traces: ${tracesDir}/ (OTLP/JSON lines, one ExportTraceServiceRequest per line). Next:`);
  say(`  npx afterstop leak-report ${tracesDir} --format html --out afterstop-report.html`);
  return { tracesDir, turns, spans, session, report, ledger: sim.ledger, comparisons };
}

export const USAGE = `Usage: node dist/demo/main.js [--traces-dir DIR]   (npm start)

Runs a demo agent with cancellations against the local simulator; its traces go to
--traces-dir (default: AFTERSTOP_TRACES_DIR, else ./afterstop-traces). Then, e.g.:
  npx afterstop leak-report DIR --format html --out report.html
`;

/**
 * The program `npm start` runs: the demo over --traces-dir. Exit 0 when it ran, 2 for bad usage (said with
 * the usage on stderr), 70 when it failed (its stack on stderr), as afterstop's exit codes say.
 */
export async function main(argv: readonly string[]): Promise<ExitCode> {
  let tracesDir: string;
  try {
    const { values } = parseArgs({ args: [...argv], options: { 'traces-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help === true) {
      process.stdout.write(USAGE);
      return EXIT_OK;
    }
    tracesDir = values['traces-dir'] ?? defaultTracesDir();
  } catch (error) {
    process.stderr.write(`afterstop demo: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  try {
    await runDemo(tracesDir);
    return EXIT_OK;
  } catch (error) {
    process.stderr.write(`afterstop demo: internal error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_INTERNAL;
  }
}

/** True when this module is the program node runs (not imported by a test). */
const isEntry = (): boolean => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
};

if (isEntry()) process.exitCode = await main(process.argv.slice(2));
