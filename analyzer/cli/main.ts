#!/usr/bin/env node
/**
 * The `afterstop` command. Builds the program; every command hands back a
 * promise of its exit code, and the process exits here, in one place.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { VERSION } from '../../instrumentation/version.js';
import { demoCommand } from './commands/demo.js';
import { ingestCommand } from './commands/ingest.js';
import { leakReportCommand } from './commands/leak-report.js';
import { pruneCommand } from './commands/prune.js';
import { queryCommand } from './commands/query.js';
import { simulatorCommand } from './commands/simulator.js';
import { EXIT_USAGE, type ExitCode } from './exit-codes.js';

export function buildProgram(done: (code: Promise<ExitCode>) => void): Command {
  const program = new Command('afterstop')
    .description('what an AI agent keeps doing after its user pressed Stop')
    .version(VERSION)
    .addCommand(leakReportCommand(done))
    .addCommand(ingestCommand(done))
    .addCommand(queryCommand(done))
    .addCommand(pruneCommand(done))
    .addCommand(demoCommand(done))
    .addCommand(simulatorCommand(done));
  // Commander would call process.exit on a usage error; every command throws instead,
  // so that the program exits in one place.
  for (const command of [program, ...program.commands]) command.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  let pending: Promise<ExitCode> | undefined;
  const program = buildProgram((code) => (pending = code));
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    throw error;
  }
  if (pending === undefined) {
    program.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  try {
    return await pending;
  } catch (error) {
    console.error(`afterstop: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_USAGE;
  }
}

/** True when this file is the program being run (directly, or through the npm bin link). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await main(process.argv);
