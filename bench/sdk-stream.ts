import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../simulator/index.js';

/**
 * A streamed model call of 1,000 chunks through the real `openai` client,
 * bare and under `node --import afterstop/register` (spans to the file
 * exporter), in the same run against the same local simulator sending as
 * fast as it can (a chunk per timer tick, about 1 ms: ten times faster than a
 * real model), so the instrumentation's share of the time is overstated.
 * Each side runs in its own process, alternately, several rounds; medians.
 */
export interface SdkStreamBench {
  chunks: number;
  callsPerRound: number;
  rounds: number;
  bareMsPerCall: number;
  instrumentedMsPerCall: number;
  /** instrumented ÷ bare − 1: the target is under 5 %. */
  extra: number;
}

const root = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

const CLIENT = `
import OpenAI from 'openai';
const client = new OpenAI({ baseURL: process.env.SIM_URL + '/v1', apiKey: 'sk-bench', maxRetries: 0 });
const call = async () => {
  const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Bench [[tokens:' + process.env.CHUNKS + ']] [[delay:0]] [[ttft:0]]' }] });
  let n = 0;
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) n++;
  if (n !== Number(process.env.CHUNKS)) throw new Error('got ' + n + ' chunks');
};
await call(); await call();   // warm up
const started = performance.now();
for (let i = 0; i < Number(process.env.CALLS); i++) await call();
console.log(JSON.stringify({ msPerCall: (performance.now() - started) / Number(process.env.CALLS) }));
`;

function runClient(instrumented: boolean, env: Record<string, string>): Promise<number> {
  const args = [...(instrumented ? ['--import', 'afterstop/register'] : []), '--input-type=module', '-e', CLIENT];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench client failed: ${err}`));
      else resolve((JSON.parse(out.trim().split('\n').pop() ?? '{}') as { msPerCall: number }).msPerCall);
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function benchSdkStream(chunks = 1000, callsPerRound = 5, rounds = 5): Promise<SdkStreamBench> {
  const sim = await startSimulator({ tokenDelayMs: 0, firstTokenDelayMs: 0 });
  const traces = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-sdk-'));
  try {
    const env = { SIM_URL: sim.url, CHUNKS: String(chunks), CALLS: String(callsPerRound), AFTERSTOP_TRACES_DIR: traces };
    const bare: number[] = [];
    const instrumented: number[] = [];
    for (let i = 0; i < rounds; i++) {
      bare.push(await runClient(false, env));
      instrumented.push(await runClient(true, env));
    }
    const b = median(bare);
    const a = median(instrumented);
    return { chunks, callsPerRound, rounds, bareMsPerCall: b, instrumentedMsPerCall: a, extra: a / b - 1 };
  } finally {
    await sim.close();
    fs.rmSync(traces, { recursive: true, force: true });
  }
}
