/**
 * The standard Stop moments, and which app scenario plays each for each
 * framework (scorecard/apps). A framework without a cell for a moment has no
 * such moment (LlamaIndex has no cancel signal) or no app scenario yet.
 */
export const MOMENTS = {
  stream: 'during the model stream',
  'tool-honours': 'tool in flight, tool honours the signal',
  'tool-ignores': 'tool in flight, tool ignores the signal',
  'sends-late': 'tool ignores the signal, sends after Stop',
  'before-tool': 'before the tool starts',
  'after-commit': 'effect committed, its result not back yet',
  parallel: 'two tools: one finished, one in flight',
  steer: 'no Stop: a steering message while a tool runs',
  leave: 'the app leaves the stream',
  resume: 'resume after Stop',
  interrupt: 'interrupt, then resume',
  drain: 'drain',
} as const;
export type Moment = keyof typeof MOMENTS;

/**
 * The apps whose tools send their effects to `EFFECTS_URL` (default the simulator): the scorecard's "service traced"
 * column runs their cells again against the traced service. The others call the simulator itself, or a subprocess does.
 */
export const TRACED_APPS: ReadonlySet<string> = new Set(['ai-sdk-app.mjs', 'langgraph-agent-app.mjs', 'mastra-app.mjs', 'openai-agents-app.mjs', 'reference-app.mjs', 'strands-app.mjs']);

export interface Cell {
  app: string;
  scenario: string;
  env?: Record<string, string>;
  /** A known limit of afterstop that makes this cell disagree with the ground truth, said in the card. */
  limit?: string;
}

export interface FrameworkRow {
  framework: string;
  /** npm packages whose versions the scorecard names. */
  packages: string[];
  /** The row runs its apps against these installed aliases of packages (package → alias, see package.json), not the project's own versions. */
  aliases?: Record<string, string>;
  cells: Partial<Record<Moment, Cell>>;
}

/** The tool takes 300 ms to compose its mail, ignoring the signal, and sends it after the Stop (100 to 200 ms after it started): the commit fence's case. */
const LATE = { PREPARE_MS: '300' };

/** A LangGraph tool-calling agent (scorecard/apps/langgraph-agent-app.mjs), hand-built or prebuilt (`PREBUILT`). */
function langgraphAgent(framework: string, env: Record<string, string>, packages = ['@langchain/langgraph', '@langchain/openai']): FrameworkRow {
  const cell = (scenario: string, extra: Record<string, string> = {}): Cell => ({ app: 'langgraph-agent-app.mjs', scenario, env: { ...env, ...extra } });
  return {
    framework,
    packages,
    cells: {
      stream: cell('text'),
      'tool-honours': cell('tool-next', { HONOUR: '1' }),
      'tool-ignores': cell('tool-next'),
      'sends-late': cell('tool-next', LATE),
      'before-tool': cell('before-tool'),
      'after-commit': cell('after-commit', { HONOUR: '1', EFFECT: 'delayMs=50&replyDelayMs=600' }),
      parallel: cell('parallel', { HONOUR: '1' }),
    },
  };
}

const ai = (scenario: string, env: Record<string, string> = {}): Cell => ({ app: 'ai-sdk-app.mjs', scenario, env: { PROVIDER: 'openai', ...env } });
/** AI SDK 7 (through its telemetry hooks): the same app, against ai 7 and @ai-sdk/openai 4. */
const AI_7 = { ai: 'ai-7.0.173', '@ai-sdk/openai': 'ai-sdk-openai-4.0.118' };
const mastra = (scenario: string, env?: Record<string, string>): Cell => ({ app: 'mastra-app.mjs', scenario, ...(env ? { env } : {}) });

/** Strands Agents (scorecard/apps/strands-app.mjs): its tool's POST in flight at Stop (tool-ignores), `env` says how. */
const strands = (env: Record<string, string>, limit?: string): Cell => ({ app: 'strands-app.mjs', scenario: 'tool-ignores', env, ...(limit !== undefined ? { limit } : {}) });
const STRANDS_NO_STOP =
  "Strands' spans record no Stop (its cancelSignal leaves none in them) and afterstop does not patch Strands: the e-mail's commit is recorded under Strands' execute_tool span (afterstop.tool.foreign), but no Stop dates it, so it is no ghost; the report says its figures are lower bounds";

/**
 * The MCP stacks (issue 48): an app whose tools come from the scorecard's MCP mail server
 * (scorecard/apps/mcp-mail-server.mjs, another process, over stdio or Streamable HTTP), stopped 100 ms after the
 * server's send_email started. Each stack twice: the server plain (out of afterstop's sight: the client side
 * alone) and the server under `--import afterstop/register` (`SERVER_REGISTER=1`: the server side joined); the
 * guard's run of every cell (scorecard.ts) makes the other two variants. Every variant is stopped while the
 * server's POST is in flight, its handler ignoring `extra.signal`; `honours` adds the plain variant with a handler
 * that honours it (`HONOUR=1`), `sendsLate` the instrumented variant with a server that composes its mail for
 * 300 ms and sends it after the Stop; `instrumentedEnv` is more environment for the instrumented variant.
 */
function mcpRows(
  stack: string,
  app: string,
  transport: 'stdio' | 'http',
  packages: string[],
  options: { honours?: boolean; sendsLate?: boolean; instrumentedEnv?: Record<string, string>; instrumentedNote?: string } = {},
): FrameworkRow[] {
  const cell = (env: Record<string, string>): Cell => ({ app, scenario: transport, env });
  const plain: FrameworkRow = {
    framework: `MCP: ${stack}, server not instrumented`,
    packages: [...packages, '@modelcontextprotocol/sdk'],
    cells: { 'tool-ignores': cell({}), ...(options.honours ? { 'tool-honours': cell({ HONOUR: '1' }) } : {}) },
  };
  const server = { SERVER_REGISTER: '1', ...options.instrumentedEnv };
  const instrumented: FrameworkRow = {
    framework: `MCP: ${stack}, server instrumented${options.instrumentedNote ?? ''}`,
    packages: [...packages, '@modelcontextprotocol/sdk'],
    cells: { 'tool-ignores': cell(server), ...(options.sendsLate ? { 'sends-late': cell({ ...server, ...LATE }) } : {}) },
  };
  return [plain, instrumented];
}

/**
 * The MCP client packages of the rows beyond the MCP SDK and `@ai-sdk/mcp` (whose ranges the mcp instrumentation
 * exports), as docs/scorecard.md names them: the apps run at the top (the installed devDependency) and at the bottom
 * (an npm alias, test/scorecard/mcp-apps.e2e.test.ts). @mastra/mcp 1.x is on the MCP SDK's v1 client, 2.x on its v2 one.
 */
export const MCP_CLIENT_VERSIONS = { '@mastra/mcp': '>=1.0.0 <3', '@langchain/mcp-adapters': '>=1.0.0 <2' } as const;

export const MCP_FRAMEWORKS: FrameworkRow[] = [
  // @ai-sdk/mcp sends no notifications/cancelled: a handler that honours its signal hears of no Stop (the guard's case).
  ...mcpRows('AI SDK streamText + @ai-sdk/mcp (stdio)', 'ai-sdk-mcp-app.mjs', 'stdio', ['ai', '@ai-sdk/mcp', '@ai-sdk/openai'], { honours: true, sendsLate: true }),
  ...mcpRows('AI SDK ToolLoopAgent + @ai-sdk/mcp (Streamable HTTP)', 'ai-sdk-mcp-app.mjs', 'http', ['ai', '@ai-sdk/mcp', '@ai-sdk/openai']),
  ...mcpRows('OpenAI Agents JS + MCPServerStdio', 'openai-agents-mcp-app.mjs', 'stdio', ['@openai/agents']),
  ...mcpRows('OpenAI Agents JS + MCPServerStreamableHttp', 'openai-agents-mcp-app.mjs', 'http', ['@openai/agents']),
  ...mcpRows('Mastra Agent + @mastra/mcp MCPClient (stdio)', 'mastra-mcp-app.mjs', 'stdio', ['@mastra/core', '@mastra/mcp'], { honours: true }),
  ...mcpRows('LangChain createAgent + @langchain/mcp-adapters (stdio)', 'langchain-mcp-app.mjs', 'stdio', ['langchain', '@langchain/mcp-adapters']),
  // The instrumented server is started through a shell (`sh -c 'node …'`, no exec): a grandchild of the app, as through a shim.
  ...mcpRows('hand-written loop, openai + MCP SDK Client.callTool with a signal (stdio)', 'mcp-sdk-loop-app.mjs', 'stdio', ['openai'], {
    honours: true,
    instrumentedEnv: { MCP_WRAPPER: 'sh' },
    instrumentedNote: ' (through sh)',
  }),
];

export const FRAMEWORKS: FrameworkRow[] = [
  {
    framework: 'Vercel AI SDK, streamText',
    packages: ['ai', '@ai-sdk/openai'],
    cells: {
      stream: ai('text'),
      'tool-honours': ai('tool-honours'),
      'tool-ignores': ai('tool-ignores'),
      'sends-late': ai('tool-ignores', LATE),
      'before-tool': ai('before-tool'),
      leave: ai('reader-cancel'),
      parallel: ai('parallel'),
      'after-commit': ai('after-commit'),
    },
  },
  { framework: 'Vercel AI SDK, generateText', packages: ['ai'], cells: { stream: ai('generate-text'), 'tool-honours': ai('generate-tool') } },
  { framework: 'Vercel AI SDK, ToolLoopAgent.generate', packages: ['ai'], cells: { 'tool-ignores': ai('agent-generate') } },
  { framework: 'Vercel AI SDK, ToolLoopAgent.stream', packages: ['ai'], cells: { 'tool-ignores': ai('agent-stream') } },
  {
    framework: 'Vercel AI SDK 7, streamText',
    packages: ['ai', '@ai-sdk/openai'],
    aliases: AI_7,
    cells: {
      stream: ai('text'),
      'tool-honours': ai('tool-honours'),
      'tool-ignores': ai('tool-ignores'),
      'sends-late': ai('tool-ignores', LATE),
      'before-tool': ai('before-tool'),
      parallel: ai('parallel'),
      'after-commit': ai('after-commit'),
    },
  },
  { framework: 'Vercel AI SDK 7, generateText', packages: ['ai'], aliases: AI_7, cells: { stream: ai('generate-text'), 'tool-honours': ai('generate-tool') } },
  { framework: 'Vercel AI SDK 7, ToolLoopAgent.generate', packages: ['ai'], aliases: AI_7, cells: { 'tool-ignores': ai('agent-generate') } },
  { framework: 'Vercel AI SDK 7, ToolLoopAgent.stream', packages: ['ai'], aliases: AI_7, cells: { 'tool-ignores': ai('agent-stream') } },
  {
    framework: 'Vercel AI SDK chat backend (node:http, pipeUIMessageStreamToResponse; the browser aborts)',
    packages: ['ai', '@ai-sdk/openai'],
    cells: { 'tool-ignores': { app: 'ai-sdk-chat-server.mjs', scenario: 'stop-during-tool' } },
  },
  {
    framework: 'Vercel AI SDK chat backend (Hono, toUIMessageStreamResponse, the request signal; the browser aborts)',
    packages: ['ai', '@ai-sdk/openai', 'hono', '@hono/node-server'],
    cells: { 'tool-ignores': { app: 'ai-sdk-hono-server.mjs', scenario: 'stop-during-tool' } },
  },
  {
    framework: 'Vercel AI SDK 7 chat backend (node:http, pipeUIMessageStreamToResponse; the browser aborts)',
    packages: ['ai', '@ai-sdk/openai'],
    aliases: AI_7,
    cells: { 'tool-ignores': { app: 'ai-sdk-chat-server.mjs', scenario: 'stop-during-tool' } },
  },
  {
    framework: 'Vercel AI SDK 7 chat backend (Hono, toUIMessageStreamResponse, the request signal; the browser aborts)',
    packages: ['ai', '@ai-sdk/openai', 'hono', '@hono/node-server'],
    aliases: AI_7,
    cells: { 'tool-ignores': { app: 'ai-sdk-hono-server.mjs', scenario: 'stop-during-tool' } },
  },
  {
    framework: 'OpenAI Agents JS, streamed',
    packages: ['@openai/agents'],
    cells: {
      stream: { app: 'openai-agents-app.mjs', scenario: 'text' },
      'tool-honours': { app: 'openai-agents-app.mjs', scenario: 'next-turn-honours' },
      'tool-ignores': { app: 'openai-agents-app.mjs', scenario: 'next-turn' },
      'sends-late': { app: 'openai-agents-app.mjs', scenario: 'next-turn', env: LATE },
      'before-tool': { app: 'openai-agents-app.mjs', scenario: 'before-tool' },
      'after-commit': { app: 'openai-agents-app.mjs', scenario: 'after-commit' },
      parallel: { app: 'openai-agents-app.mjs', scenario: 'parallel' },
      leave: { app: 'openai-agents-app.mjs', scenario: 'stream-cancel' },
    },
  },
  {
    framework: 'OpenAI Agents JS, not streamed',
    packages: ['@openai/agents'],
    cells: {
      stream: { app: 'openai-agents-app.mjs', scenario: 'plain-text' },
      'tool-honours': { app: 'openai-agents-app.mjs', scenario: 'plain-tool-honours' },
      'tool-ignores': { app: 'openai-agents-app.mjs', scenario: 'plain-tool' },
      'sends-late': { app: 'openai-agents-app.mjs', scenario: 'plain-tool', env: LATE },
      // Resuming is for interruptions (a tool that needs approval): the run's state, approved, runs on.
      interrupt: { app: 'openai-agents-app.mjs', scenario: 'interrupt-resume' },
    },
  },
  {
    framework: 'LangGraph.js, StateGraph',
    packages: ['@langchain/langgraph'],
    cells: {
      resume: { app: 'langgraph-app.mjs', scenario: 'abort-resume' },
      leave: { app: 'langgraph-app.mjs', scenario: 'cancel-resume' },
      interrupt: { app: 'langgraph-app.mjs', scenario: 'interrupt-resume' },
      drain: { app: 'langgraph-app.mjs', scenario: 'drain' },
    },
  },
  langgraphAgent('LangGraph.js, StateGraph agent (model node + ToolNode)', {}),
  langgraphAgent('LangGraph.js, prebuilt createReactAgent', { PREBUILT: '1' }),
  langgraphAgent('LangChain, createAgent', { CREATE_AGENT: '1' }, ['langchain', '@langchain/langgraph', '@langchain/openai']),
  langgraphAgent('LangChain, createAgent with a middleware', { CREATE_AGENT: '1', MIDDLEWARE: '1' }, ['langchain', '@langchain/langgraph', '@langchain/openai']),
  {
    framework: 'Mastra, Agent.stream',
    packages: ['@mastra/core'],
    cells: { stream: mastra('text'), 'tool-honours': mastra('tool-honours'), 'tool-ignores': mastra('tool-ignores'), 'sends-late': mastra('tool-ignores', LATE) },
  },
  { framework: 'Mastra, Agent.generate', packages: ['@mastra/core'], cells: { 'tool-ignores': mastra('generate-tool'), 'sends-late': mastra('generate-tool', LATE) } },
  {
    framework: 'LlamaIndex Workflows',
    packages: ['@llamaindex/workflow-core'],
    cells: {
      stream: { app: 'llamaindex-app.mjs', scenario: 'model' },
      'tool-ignores': { app: 'llamaindex-app.mjs', scenario: 'cancel-reader' },
      'before-tool': { app: 'llamaindex-app.mjs', scenario: 'before-step' },
      leave: { app: 'llamaindex-app.mjs', scenario: 'leave' },
    },
  },
  // A framework afterstop does not patch, measured only through its own GenAI spans: its tool calls are its
  // `execute_tool` spans, their commits afterstop's (afterstop.tool.foreign). Its Stop is known to afterstop
  // only when the app presses it through an afterstop run (the manual API): Strands' spans record none.
  {
    framework: 'Strands Agents (GenAI spans only), Stop through an afterstop run',
    packages: ['@strands-agents/sdk'],
    cells: {
      'tool-honours': strands({ STOP_VIA_RUN: '1', HONOUR: '1' }),
      'tool-ignores': strands({ STOP_VIA_RUN: '1' }),
      'sends-late': strands({ STOP_VIA_RUN: '1', ...LATE }),
    },
  },
  {
    framework: "Strands Agents (GenAI spans only), Stop by Strands' cancelSignal",
    packages: ['@strands-agents/sdk'],
    cells: {
      'tool-honours': strands({ HONOUR: '1' }, STRANDS_NO_STOP),
      'tool-ignores': strands({}, STRANDS_NO_STOP),
      'sends-late': strands(LATE, STRANDS_NO_STOP),
    },
  },
  { framework: 'openai SDK, Chat Completions', packages: ['openai'], cells: { stream: { app: 'openai-app.mjs', scenario: 'signal' }, leave: { app: 'openai-app.mjs', scenario: 'break' } } },
  { framework: 'openai SDK, Responses', packages: ['openai'], cells: { stream: { app: 'openai-app.mjs', scenario: 'responses-signal' } } },
  { framework: '@anthropic-ai/sdk, Messages', packages: ['@anthropic-ai/sdk'], cells: { stream: { app: 'anthropic-app.mjs', scenario: 'signal' } } },
  {
    // The agent loop runs in the Claude Code CLI (a child process), its Bash commands in the CLI's children: the SDK's messages are the evidence.
    framework: 'Claude Agent SDK, query()',
    packages: ['@anthropic-ai/claude-agent-sdk'],
    cells: {
      stream: { app: 'claude-agent-sdk-app.mjs', scenario: 'text' },
      'tool-ignores': { app: 'claude-agent-sdk-app.mjs', scenario: 'tool-ignores' },
      'sends-late': { app: 'claude-agent-sdk-app.mjs', scenario: 'long-command' },
    },
  },
  // The app's own tool, an in-process MCP server (createSdkMcpServer): its handler runs in the app's process.
  {
    framework: 'Claude Agent SDK, query() with an in-process MCP tool',
    packages: ['@anthropic-ai/claude-agent-sdk'],
    cells: { 'tool-ignores': { app: 'claude-agent-sdk-app.mjs', scenario: 'mcp-tool' }, 'sends-late': { app: 'claude-agent-sdk-app.mjs', scenario: 'mcp-tool', env: LATE } },
  },
  {
    // What cancel depth 4 looks like in code: scorecard/apps/reference-app.mjs.
    framework: 'reference agent (afterstop manual API + openai)',
    packages: ['openai'],
    cells: {
      stream: { app: 'reference-app.mjs', scenario: 'text' },
      'tool-honours': { app: 'reference-app.mjs', scenario: 'tool' },
      'before-tool': { app: 'reference-app.mjs', scenario: 'before-tool' },
      'after-commit': { app: 'reference-app.mjs', scenario: 'after-commit' },
      parallel: { app: 'reference-app.mjs', scenario: 'parallel' },
      steer: { app: 'reference-app.mjs', scenario: 'steer' },
    },
  },
  ...MCP_FRAMEWORKS,
];
