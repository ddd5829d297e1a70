import { Command } from 'commander';
import { EXIT_OK, type ExitCode } from '../exit-codes.js';
import { simulatorReference } from '../../simulator/reference.js';
import { nonNegativeNumber, port } from '../options.js';

/**
 * `afterstop simulator`: the local model provider (OpenAI Chat Completions and
 * Responses, Anthropic Messages, streamed) and side-effect service that afterstop
 * tests with, for trying an agent's Stop button offline. Runs until SIGINT/SIGTERM.
 * Its help lists every directive and route from the simulator's own lists.
 */
export function simulatorCommand(done: (code: Promise<ExitCode>) => void): Command {
  return new Command('simulator')
    .description('run the local model and side-effect simulator until interrupted: a scripted model (OpenAI, Anthropic) and side-effect service that record what really happened')
    .option('--port <n>', 'port to listen on (0: any free port)', port, 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--token-delay <ms>', 'delay between streamed tokens (default 25; [[delay:MS]] per request)', nonNegativeNumber)
    .option('--first-token-delay <ms>', 'delay before the first token (default: the token delay; [[ttft:MS]] per request)', nonNegativeNumber)
    .addHelpText(
      'after',
      () => `
${simulatorReference()}

Examples:
  afterstop simulator --port 4010     # prints its URL, then serves until Ctrl-C
  OPENAI_BASE_URL=http://127.0.0.1:4010/v1 ANTHROPIC_BASE_URL=http://127.0.0.1:4010 node my-agent.js
  curl -s http://127.0.0.1:4010/ledger`,
    )
    .action((options: { port: number; host: string; tokenDelay?: number; firstTokenDelay?: number }) => {
      done(runSimulator(options));
    });
}

async function runSimulator(options: { port: number; host: string; tokenDelay?: number; firstTokenDelay?: number }): Promise<ExitCode> {
  const { startSimulator } = await import('../../simulator/index.js');
  const sim = await startSimulator({
    port: options.port,
    host: options.host,
    ...(options.tokenDelay !== undefined ? { tokenDelayMs: options.tokenDelay } : {}),
    ...(options.firstTokenDelay !== undefined ? { firstTokenDelayMs: options.firstTokenDelay } : {}),
  });
  console.log(sim.url);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.close();
  return EXIT_OK;
}
