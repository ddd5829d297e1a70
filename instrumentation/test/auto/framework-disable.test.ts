import { createRequire } from 'node:module';
import { isWrapped } from '@opentelemetry/instrumentation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LangGraphInstrumentation } from '../../auto/langgraph.js';
import { LlamaIndexWorkflowInstrumentation } from '../../auto/llamaindex-workflow.js';
import { MastraInstrumentation } from '../../auto/mastra.js';
import { OpenAIAgentsInstrumentation } from '../../auto/openai-agents.js';
import { captureTraces, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The framework patches in this process, on the real packages' CommonJS
 * builds: on, a graph or workflow run is recorded; after disable(), the
 * wrappers left in graphs and workflows already built pass straight through,
 * and the app's results are the same.
 */
const require = createRequire(import.meta.url);
let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

const runsOf = async (framework: string): Promise<number> => (await capture.spans()).filter((s) => s.name.startsWith('invoke_agent') && s.attributes['afterstop.framework'] === framework).length;

describe('switching the framework instrumentations off', () => {
  it('LangGraph: a graph built while on records nothing once off, and returns the same state', async () => {
    const instrumentation = new LangGraphInstrumentation({ enabled: false });
    instrumentation.enable();
    const lg = require('@langchain/langgraph') as typeof import('@langchain/langgraph');
    const State = lg.Annotation.Root({ n: lg.Annotation<number>() });
    const graph = new lg.StateGraph(State)
      .addNode('inc', (s: { n: number }) => ({ n: s.n + 1 }))
      .addEdge(lg.START, 'inc')
      .addEdge('inc', lg.END)
      .compile();
    expect(await graph.invoke({ n: 1 })).toEqual({ n: 2 });
    expect(await runsOf('langgraph')).toBe(1);
    instrumentation.disable();
    expect(await graph.invoke({ n: 5 })).toEqual({ n: 6 });
    expect(await runsOf('langgraph')).toBe(1);
  });

  it('LlamaIndex Workflows: a workflow made while on records nothing once off, and delivers the same events', async () => {
    const instrumentation = new LlamaIndexWorkflowInstrumentation({ enabled: false });
    instrumentation.enable();
    const wf = require('@llamaindex/workflow-core') as typeof import('@llamaindex/workflow-core');
    const start = wf.workflowEvent<number>();
    const done = wf.workflowEvent<number>();
    const workflow = wf.createWorkflow();
    const double = async (_: unknown, e: { data: number }) => done.with(e.data * 2);
    workflow.handle([start], double);
    workflow.handle([start], double); // the same handler twice is one handler, as without afterstop
    const once = async (): Promise<number[]> => {
      const { stream, sendEvent } = workflow.createContext();
      sendEvent(start.with(21));
      const out: number[] = [];
      for await (const ev of stream.until(done)) if (done.include(ev)) out.push(ev.data);
      return out;
    };
    expect(await once()).toEqual([42]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await runsOf('llamaindex-workflows')).toBe(1);
    instrumentation.disable();
    expect(await once()).toEqual([42]);
    expect(await runsOf('llamaindex-workflows')).toBe(1);
  });

  it('Mastra: its Agent (the CommonJS build of @mastra/core/agent) is patched, and unpatched by disable()', () => {
    const instrumentation = new MastraInstrumentation({ enabled: false });
    instrumentation.enable();
    const { Agent } = require('@mastra/core/agent') as { Agent: { prototype: Record<string, unknown> } };
    const methods = ['stream', 'generate', 'resolveModelConfig', 'convertTools'];
    expect(methods.map((m) => isWrapped(Agent.prototype[m]))).toEqual([true, true, true, true]);
    instrumentation.disable();
    expect(methods.map((m) => isWrapped(Agent.prototype[m]))).toEqual([false, false, false, false]);
  });

  it('OpenAI Agents JS: the runner is unwrapped', () => {
    const instrumentation = new OpenAIAgentsInstrumentation({ enabled: false });
    instrumentation.enable();
    const core = require('@openai/agents-core') as { Runner: { prototype: { run: unknown } } };
    expect(isWrapped(core.Runner.prototype.run)).toBe(true);
    instrumentation.disable();
    expect(isWrapped(core.Runner.prototype.run)).toBe(false);
  });
});
