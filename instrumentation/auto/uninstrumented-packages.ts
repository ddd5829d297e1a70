/**
 * The agent frameworks, agent SDKs and MCP clients afterstop knows of and does not instrument: when the app
 * loads one (import or require), one line on stderr names it, once per process, and every run of the process
 * carries it (afterstop.run.uninstrumented), so that the report and `explain` say their figures are lower
 * bounds. Declarative: a package is one entry. (watch-uninstrumented.ts does the watching.)
 */
export interface UninstrumentedPackage {
  /** The npm package name, as the app imports it (its subpaths match too). */
  readonly module: string;
  /** What it is, in words. */
  readonly what: string;
  /** What afterstop does not see of it. */
  readonly misses: string;
  /**
   * It writes its own OpenTelemetry GenAI spans through the global tracer provider (afterstop's): the
   * analyzer reads them as a run (a foreign run, without Stop markers), so a model call it makes through an
   * instrumented client is not made a run of its own (instrumentation/uninstrumented.ts).
   */
  readonly ownSpans?: boolean;
  /**
   * Loaded by a framework afterstop instruments (OpenAI Agents imports the MCP SDK whether or not the app uses
   * MCP), it is named when a client of it sends its first request (the mcp instrumentation sees it), not when
   * it loads: a framework's eager import is no evidence that the app's tools went out of sight.
   */
  readonly namedOnUse?: boolean;
}

/** Where the packages afterstop instruments live, as a module URL shows them (a listed package they load may be theirs). */
export const INSTRUMENTED_PACKAGE_DIRS: readonly string[] = [
  '/node_modules/@openai/agents',
  '/node_modules/@mastra/core/',
  '/node_modules/@langchain/',
  '/node_modules/langchain/',
  '/node_modules/ai/',
  '/node_modules/@llamaindex/',
];

const FRAMEWORK_MISSES = 'its runs, tool calls and Stops are not recorded (only model calls made through the openai or @anthropic-ai/sdk clients are)';
const MCP_MISSES =
  "an MCP tool's side effects happen in the MCP server, which afterstop does not see: a commit after Stop is not recorded (where the mcp instrumentation covers the client, a tool that sent a tools/call is at best a possible ghost)";

export const UNINSTRUMENTED_PACKAGES: readonly UninstrumentedPackage[] = [
  { module: '@google/adk', what: 'Google ADK, an agent framework', misses: `${FRAMEWORK_MISSES}; its own OpenTelemetry spans are read as a foreign run, without Stop markers`, ownSpans: true },
  { module: '@strands-agents/sdk', what: 'Strands Agents, an agent framework', misses: `${FRAMEWORK_MISSES}; its own OpenTelemetry spans are read as a foreign run, without Stop markers`, ownSpans: true },
  { module: '@voltagent/core', what: 'VoltAgent, an agent framework', misses: FRAMEWORK_MISSES },
  { module: 'genkit', what: 'Genkit, an agent framework', misses: FRAMEWORK_MISSES },
  { module: '@inngest/agent-kit', what: 'Inngest AgentKit, an agent framework', misses: FRAMEWORK_MISSES },
  { module: 'beeai-framework', what: 'BeeAI, an agent framework', misses: FRAMEWORK_MISSES },
  { module: '@openai/codex-sdk', what: 'the Codex SDK, an agent SDK', misses: 'its agent loop runs in a child process (the Codex CLI): its model calls, tool calls, their side effects and Stops are not recorded' },
  { module: '@modelcontextprotocol/sdk', what: 'the MCP SDK, an MCP client', misses: MCP_MISSES, namedOnUse: true },
  { module: '@modelcontextprotocol/client', what: 'the MCP client (v2), an MCP client', misses: MCP_MISSES, namedOnUse: true },
  { module: '@ai-sdk/mcp', what: "the AI SDK's MCP client", misses: MCP_MISSES, namedOnUse: true },
  { module: '@mastra/mcp', what: "Mastra's MCP client", misses: MCP_MISSES },
  { module: '@langchain/mcp-adapters', what: "LangChain's MCP adapters, an MCP client", misses: MCP_MISSES },
];
