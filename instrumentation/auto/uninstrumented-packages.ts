/**
 * The agent frameworks, agent SDKs and MCP clients afterstop knows of and does not instrument (the MCP SDK's
 * client only in its CommonJS build: the mcp instrumentation measures the others): when the app
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
   * Only these subpaths of it count (`client/`: the MCP SDK's client); its others (the MCP SDK's server, which the
   * mcp-server instrumentation covers, and the types both sides import) are not named.
   */
  readonly subpaths?: readonly string[];
  /**
   * Only its CommonJS build counts (loaded with `require`): the MCP SDK's client, whose ESM build the mcp
   * instrumentation measures and whose CommonJS build it cannot reach (require-in-the-middle cannot resolve the
   * package, which has no `main`).
   */
  readonly requiredOnly?: boolean;
}

const FRAMEWORK_MISSES = 'its runs, tool calls and Stops are not recorded (only model calls made through the openai or @anthropic-ai/sdk clients are)';
/** A framework that writes its own GenAI spans: its tool calls' HTTP commits are afterstop's (foreign-tool-spans.ts), its Stops are not. */
const OWN_SPANS_MISSES =
  'its Stops are not recorded, nor its model calls other than those made through the openai or @anthropic-ai/sdk clients; its own OpenTelemetry spans are read as a foreign run, without Stop markers, and the HTTP commits of its tool calls are recorded under their execute_tool spans';
const MCP_MISSES =
  "its CommonJS build (loaded with require) is one afterstop's mcp instrumentation cannot reach: its tools/call requests are not recorded, and an MCP tool's side effects happen in the MCP server, out of afterstop's sight (import the client, the ESM build, to have them measured)";

export const UNINSTRUMENTED_PACKAGES: readonly UninstrumentedPackage[] = [
  { module: '@google/adk', what: 'Google ADK, an agent framework', misses: OWN_SPANS_MISSES, ownSpans: true },
  { module: '@strands-agents/sdk', what: 'Strands Agents, an agent framework', misses: OWN_SPANS_MISSES, ownSpans: true },
  { module: '@voltagent/core', what: 'VoltAgent, an agent framework', misses: FRAMEWORK_MISSES },
  { module: 'genkit', what: 'Genkit, an agent framework', misses: FRAMEWORK_MISSES },
  { module: '@inngest/agent-kit', what: 'Inngest AgentKit, an agent framework', misses: FRAMEWORK_MISSES },
  { module: 'beeai-framework', what: 'BeeAI, an agent framework', misses: FRAMEWORK_MISSES },
  { module: '@openai/codex-sdk', what: 'the Codex SDK, an agent SDK', misses: 'its agent loop runs in a child process (the Codex CLI): its model calls, tool calls, their side effects and Stops are not recorded' },
  { module: '@modelcontextprotocol/sdk', what: 'the MCP SDK, an MCP client', misses: MCP_MISSES, subpaths: ['client/'], requiredOnly: true },
];
