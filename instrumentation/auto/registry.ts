import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import { AiSdkInstrumentation } from './ai-sdk.js';
import { AnthropicInstrumentation } from './anthropic.js';
import { ChildProcessInstrumentation } from './child-processes.js';
import { ClaudeAgentSdkInstrumentation } from './claude-agent-sdk.js';
import { sayOnce } from '../adapter-api.js';
import { HttpCommitInstrumentation } from './http-commits.js';
import { OpenAIInstrumentation } from './openai.js';
import { LangGraphInstrumentation } from './langgraph.js';
import { LlamaIndexWorkflowInstrumentation } from './llamaindex-workflow.js';
import { MastraInstrumentation } from './mastra.js';
import { McpInstrumentation } from './mcp.js';
import { McpServerInstrumentation } from './mcp-server.js';
import { OpenAIAgentsInstrumentation } from './openai-agents.js';

/** An auto-instrumentation: the package(s) it patches (none for the HTTP commit detector, which patches nothing). */
export interface AutoInstrumentationClass {
  new (config?: InstrumentationConfig): Instrumentation;
  readonly module: string | readonly string[] | undefined;
}

/**
 * afterstop's auto-instrumentations, by name. Each declares the package and
 * versions it patches (InstrumentationNodeModuleDefinition), patches only
 * those, and undoes its patches on disable().
 */
export const AUTO_INSTRUMENTATIONS: Record<string, AutoInstrumentationClass> = {
  'http-commits': HttpCommitInstrumentation,
  openai: OpenAIInstrumentation,
  anthropic: AnthropicInstrumentation,
  'ai-sdk': AiSdkInstrumentation,
  'openai-agents': OpenAIAgentsInstrumentation,
  langgraph: LangGraphInstrumentation,
  'llamaindex-workflows': LlamaIndexWorkflowInstrumentation,
  mastra: MastraInstrumentation,
  mcp: McpInstrumentation,
  'mcp-server': McpServerInstrumentation,
  'claude-agent-sdk': ClaudeAgentSdkInstrumentation,
  'child-processes': ChildProcessInstrumentation,
};

/**
 * Which to enable: AFTERSTOP_INSTRUMENTATIONS (`all`, the default; `none`; or
 * names, comma-separated), minus AFTERSTOP_DISABLED_INSTRUMENTATIONS. An
 * unknown name in either is said once on stderr and left out.
 */
export function enabledInstrumentations(env: NodeJS.ProcessEnv = process.env): string[] {
  const wanted = (env['AFTERSTOP_INSTRUMENTATIONS'] ?? 'all').trim();
  const off = new Set(
    (env['AFTERSTOP_DISABLED_INSTRUMENTATIONS'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const names = wanted === 'all' || wanted === '' ? Object.keys(AUTO_INSTRUMENTATIONS) : wanted === 'none' ? [] : wanted.split(',').map((s) => s.trim());
  // A name afterstop does not know (a typo, one from a newer version) is said once; the known ones still run.
  const unknown = [...names, ...off].filter((n) => !(n in AUTO_INSTRUMENTATIONS));
  if (unknown.length > 0)
    sayOnce(
      `unknown-instrumentations:${unknown.join(',')}`,
      `unknown instrumentation(s) ${unknown.join(', ')} in AFTERSTOP_INSTRUMENTATIONS / AFTERSTOP_DISABLED_INSTRUMENTATIONS, left out (known: ${Object.keys(AUTO_INSTRUMENTATIONS).join(', ')})`,
    );
  return names.filter((n) => n in AUTO_INSTRUMENTATIONS && !off.has(n));
}

/** The packages the enabled instrumentations patch (the ESM loader hook intercepts only these). */
export const modulesOf = (names: string[]): string[] => names.flatMap((n) => AUTO_INSTRUMENTATIONS[n]?.module ?? []);

/** Enable them (each patches its package when the app loads it); returns them, for disable(). */
export function enableInstrumentations(names: string[]): Instrumentation[] {
  return names.map((n) => {
    const instrumentation = new (AUTO_INSTRUMENTATIONS[n] as AutoInstrumentationClass)();
    instrumentation.enable();
    return instrumentation;
  });
}
