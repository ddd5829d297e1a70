import { Command } from 'commander';
import { EXIT_OK, EXIT_USAGE, type ExitCode } from '../exit-codes.js';
import { defaultTracesDir } from '../../../instrumentation/traces-dir.js';

/** `afterstop demo`: what `npm start` runs (a demo agent with cancellations writes traces locally). */
export function demoCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('demo')
    .description('run a demo agent with cancellations against the local simulator; traces go to --traces-dir')
    .option('--traces-dir <dir>', 'where the traces go', defaultTracesDir())
    .addHelpText('after', `
Examples:
  afterstop demo
  afterstop demo --traces-dir /tmp/demo-traces && afterstop leak-report /tmp/demo-traces --format html --out report.html`)
    .action((options: { tracesDir: string }) => done(runDemoCommand(options.tracesDir)));
}

async function runDemoCommand(tracesDir: string): Promise<ExitCode> {
  let demo: typeof import('../../../demo/main.js');
  try {
    demo = await import('../../../demo/main.js');
  } catch (error) {
    // The demo agent uses the `openai` client, a development dependency of afterstop: missing, that is
    // how afterstop was installed (exit 2); any other failure to load it is a bug (thrown: its stack, exit 70).
    if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    console.error(`afterstop demo: cannot load the demo agent (${error instanceof Error ? error.message : String(error)}); run it from a clone of afterstop after npm ci`);
    return EXIT_USAGE;
  }
  await demo.runDemo(tracesDir);
  return EXIT_OK;
}
