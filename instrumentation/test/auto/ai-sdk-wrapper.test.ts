import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AiSdkInstrumentation } from '../../auto/ai-sdk.js';
import { startSimulator, type Simulator } from '../../../analyzer/simulator/index.js';
import { captureTraces, named, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The AI SDK patch in this process, on the CommonJS build of the real `ai`
 * package (read-only exports: the patch hands back a copy): the tool shapes
 * the SDK accepts, a call that throws before it starts, and disable().
 */
type Ai = typeof import('ai');
const require = createRequire(import.meta.url);
let capture: TraceCapture;
let sim: Simulator;
let ai: Ai;
let model: unknown;
const instrumentation = new AiSdkInstrumentation({ enabled: false });

beforeAll(async () => {
  capture = captureTraces();
  sim = await startSimulator({ tokenDelayMs: 2 });
  instrumentation.enable();
  ai = require('ai') as Ai;
  const { createOpenAI } = require('@ai-sdk/openai') as typeof import('@ai-sdk/openai');
  model = createOpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'sk-test' }).chat('gpt-4o');
});
afterAll(async () => {
  instrumentation.disable();
  await sim.close();
  await capture.close();
});

/** A turn whose model calls `tool` once, then answers; read to its end. */
async function turn(tool: Record<string, unknown>, agent: string): Promise<string> {
  const result = ai.streamText({
    model: model as Parameters<Ai['streamText']>[0]['model'],
    prompt: 'Look it up. [[tool:lookup {"q":"x"}]] [[tokens:3]]',
    tools: { lookup: tool as never },
    stopWhen: ai.stepCountIs(3),
    experimental_telemetry: { functionId: agent },
  });
  return result.text;
}

async function runOf(agent: string) {
  const spans = await capture.spans();
  const run = spans.find((s) => s.name === `invoke_agent ${agent}`);
  return { run, spans: spans.filter((s) => s.attributes['afterstop.run.id'] === run?.attributes['afterstop.run.id']) };
}

describe('the AI SDK patch, in process', () => {
  it('patches the CommonJS build through a copy of its exports', () => {
    expect(ai.streamText.name).toBe('observedEntry');
    expect(ai.generateText.name).toBe('observedEntry');
  });

  it('tools as the SDK takes them: a plain function, one that streams preliminary results, one with a prototype', async () => {
    const inputSchema = ai.jsonSchema({ type: 'object', properties: { q: { type: 'string' } } });
    expect(await turn({ inputSchema, execute: () => ({ found: 1 }) }, 'sync')).toContain('tok');
    expect(
      await turn(
        {
          inputSchema,
          execute: async function* () {
            yield { found: 0 };
            yield { found: 2 };
          },
        },
        'iterable',
      ),
    ).toContain('tok');
    class LookupTool {
      readonly inputSchema = inputSchema;
      get description(): string {
        return 'from a class';
      }
      execute(): { found: number; self: boolean } {
        return { found: 3, self: this instanceof LookupTool };
      }
    }
    const text = ai.streamText({
      model: model as never,
      prompt: 'Look it up. [[tool:lookup {"q":"x"}]]',
      tools: { lookup: new LookupTool() as never },
      stopWhen: ai.stepCountIs(3),
      experimental_telemetry: { functionId: 'class' },
    });
    const steps = await text.steps;
    expect(steps[0]?.toolResults[0]?.output).toEqual({ found: 3, self: true });
    for (const agent of ['sync', 'iterable', 'class']) {
      const { run, spans } = await runOf(agent);
      expect(run?.endNs, agent).toBeGreaterThan(0n);
      const tools = named(spans, 'execute_tool lookup');
      expect(
        tools.map((t) => t.attributes['afterstop.tool.result']),
        agent,
      ).toEqual(['delivered']);
      expect(tools[0]!.endNs).toBeLessThanOrEqual(run!.endNs);
    }
  });

  it('a call that throws before it starts (a model of an unsupported version): the error reaches the app, the run ends failed', async () => {
    const bad = { specificationVersion: 'v0', provider: 'x', modelId: 'y', doStream: () => undefined, doGenerate: () => undefined };
    expect(() => ai.streamText({ model: bad as never, prompt: 'hi', experimental_telemetry: { functionId: 'throws' } })).toThrow(/Unsupported model version/);
    const { run } = await runOf('throws');
    expect(run?.statusCode).toBe(2);
    expect(run?.attributes['afterstop.run.outcome']).toBe('failed');
  });

  it('generateText: the app gets a promise that settles as the SDK’s does', async () => {
    const ok = await ai.generateText({ model: model as never, prompt: 'Hi [[tokens:4]]', experimental_telemetry: { functionId: 'plain' } });
    expect(ok.text.trim().split(/\s+/)).toHaveLength(4);
    const stop = new AbortController();
    stop.abort();
    await expect(ai.generateText({ model: model as never, prompt: 'Hi', abortSignal: stop.signal })).rejects.toThrow(/abort/i);
  });

  it('disable() puts the SDK’s own functions back', () => {
    const patched = ai.streamText;
    instrumentation.disable();
    expect(ai.streamText).not.toBe(patched);
    expect(ai.streamText.name).toBe('streamText');
    instrumentation.enable();
  });
});
