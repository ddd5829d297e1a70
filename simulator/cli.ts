#!/usr/bin/env node
/** node dist/simulator/cli.js [--port N] [--host H] [--token-delay MS] [--first-token-delay MS] */
import { parseArgs } from 'node:util';
import { startSimulator } from './server.js';

function numberOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`${flag} must be a non-negative number, got ${value}`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'token-delay': { type: 'string' },
    'first-token-delay': { type: 'string' },
  },
});

const port = numberOption(values.port, '--port');
const tokenDelayMs = numberOption(values['token-delay'], '--token-delay');
const firstTokenDelayMs = numberOption(values['first-token-delay'], '--first-token-delay');
const sim = await startSimulator({
  ...(port !== undefined ? { port } : {}),
  ...(values.host !== undefined ? { host: values.host } : {}),
  ...(tokenDelayMs !== undefined ? { tokenDelayMs } : {}),
  ...(firstTokenDelayMs !== undefined ? { firstTokenDelayMs } : {}),
});
console.log(sim.url);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void sim.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
