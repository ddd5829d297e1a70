import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSimulator } from '@afterstop/analyzer/simulator';
import { median, runScript } from './child.js';

/**
 * A streamed model call of 1,000 chunks through the real `openai` client
 * (`openai`), or an AI SDK `streamText` turn with a tool call (a POST to the
 * simulator's effect service, seen by the HTTP commit detector) followed by
 * a streamed answer of 1,000 chunks (`ai-sdk`), bare and under `node --import afterstop/register` (spans to the file
 * exporter), in the same run against the same local simulator sending as
 * fast as it can (a chunk per timer tick, about 1 ms: ten times faster than a
 * real model), so the instrumentation's share of the time is overstated.
 * Each side runs in its own process, alternately, several rounds; medians.
 */
export type SdkStreamClient = 'openai' | 'ai-sdk';

export interface SdkStreamBench {
  client: SdkStreamClient;
  chunks: number;
  callsPerRound: number;
  rounds: number;
  bareMsPerCall: number;
  instrumentedMsPerCall: number;
  /** instrumented ÷ bare − 1: the target is under 5 %. */
  extra: number;
  /** CPU time of the client process per call (user + system): what the wall time, paced by the simulator, hides. */
  bareCpuMsPerCall: number;
  instrumentedCpuMsPerCall: number;
  cpuExtra: number;
}

/** What both clients end with: two calls to warm up, then CALLS calls timed (wall and CPU). */
const TIMED = `await call(); await call();   // warm up
const started = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < Number(process.env.CALLS); i++) await call();
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ msPerCall: (performance.now() - started) / Number(process.env.CALLS), cpuMsPerCall: (used.user + used.system) / 1000 / Number(process.env.CALLS) }));
`;

const CLIENTS: Record<SdkStreamClient, string> = {} as Record<SdkStreamClient, string>;
CLIENTS.openai = `
import OpenAI from 'openai';
const client = new OpenAI({ baseURL: process.env.SIM_URL + '/v1', apiKey: 'sk-bench', maxRetries: 0 });
const call = async () => {
  const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Bench [[tokens:' + process.env.CHUNKS + ']] [[delay:0]] [[ttft:0]]' }] });
  let n = 0;
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) n++;
  if (n !== Number(process.env.CHUNKS)) throw new Error('got ' + n + ' chunks');
};
${TIMED}`;

CLIENTS['ai-sdk'] = `
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
const model = createOpenAI({ baseURL: process.env.SIM_URL + '/v1', apiKey: 'sk-bench' }).chat('gpt-4o');
const tools = {
  lookup: tool({
    inputSchema: jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }),
    execute: async (input) => (await fetch(process.env.SIM_URL + '/effects/lookup?delayMs=0', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) })).json(),
  }),
};
const call = async () => {
  const result = streamText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Bench [[tool:lookup {"q":"x"}]] [[tokens:' + process.env.CHUNKS + ']] [[delay:0]] [[ttft:0]]' });
  let n = 0;
  for await (const _ of result.textStream) n++;
  if (n !== Number(process.env.CHUNKS)) throw new Error('got ' + n + ' chunks');
};
${TIMED}`;

interface ClientTiming {
  msPerCall: number;
  cpuMsPerCall: number;
}

const runClient = (client: SdkStreamClient, instrumented: boolean, env: Record<string, string>): Promise<ClientTiming> =>
  runScript<ClientTiming>(CLIENTS[client], { nodeArgs: instrumented ? ['--import', 'afterstop/register'] : [], env, what: 'client' });

export async function benchSdkStream(client: SdkStreamClient = 'openai', chunks = 1000, callsPerRound = 5, rounds = 5): Promise<SdkStreamBench> {
  const sim = await startSimulator({ tokenDelayMs: 0, firstTokenDelayMs: 0 });
  const traces = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-sdk-'));
  try {
    const env = { SIM_URL: sim.url, CHUNKS: String(chunks), CALLS: String(callsPerRound), AFTERSTOP_TRACES_DIR: traces };
    const bare: ClientTiming[] = [];
    const instrumented: ClientTiming[] = [];
    for (let i = 0; i < rounds; i++) {
      bare.push(await runClient(client, false, env));
      instrumented.push(await runClient(client, true, env));
    }
    const b = median(bare.map((t) => t.msPerCall));
    const a = median(instrumented.map((t) => t.msPerCall));
    const bc = median(bare.map((t) => t.cpuMsPerCall));
    const ac = median(instrumented.map((t) => t.cpuMsPerCall));
    return { client, chunks, callsPerRound, rounds, bareMsPerCall: b, instrumentedMsPerCall: a, extra: a / b - 1, bareCpuMsPerCall: bc, instrumentedCpuMsPerCall: ac, cpuExtra: ac / bc - 1 };
  } finally {
    await sim.close();
    fs.rmSync(traces, { recursive: true, force: true });
  }
}
