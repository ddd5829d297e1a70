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
];
