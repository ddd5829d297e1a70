import {
  annotateRun,
  ATTR_RUN_COST_USD,
  endStoppedRun,
  endToolCall,
  httpCommitsDetected,
  OUT_OF_SIGHT_MCP,
  OUT_OF_SIGHT_SUBPROCESS,
  safely,
  toolOutOfSight,
  type ModelCall,
  type Run,
  type ToolCall,
  type ToolEffect,
} from '../adapter-api.js';

/**
 * The Claude Agent SDK's messages as afterstop's spans (the SDK runs its agent loop in the Claude Code CLI, a
 * child process: its messages are all the evidence there is of what that loop does):
 * - `stream_event` (partial messages): each model turn is a model call, started at its `message_start` (input
 *   tokens), a chunk per `content_block_delta`, its output tokens and stop reason from `message_delta`, ended at
 *   `message_stop`; a model turn the CLI sent no partial messages for is one model call at its `assistant`
 *   message, with the message's usage;
 * - an `assistant` message's `tool_use` blocks start tool calls (id, name, input): effect `read` for the
 *   CLI's read-only built-ins, else `unknown`, with `afterstop.tool.out_of_sight` (`mcp` for an `mcp__…` tool,
 *   `subprocess` for the CLI's own, Bash first): the effect happens in another process, so a call in flight at
 *   Stop is at best a possible ghost; a tool of an in-process MCP server (`createSdkMcpServer`) has the effect
 *   its annotations say, and its handler runs in the call's context here, its commits seen (claude-agent-sdk.ts);
 *   an `aborted` assistant message ends the model call it cuts;
 * - a `user` message's `tool_result` blocks end them: delivered (into the CLI's conversation), unless the result
 *   says the call was interrupted (`tool_use_result.interrupted`, or `is_error` with an interrupted/aborted/cancelled
 *   text): cancelled;
 * - a background task (`task_started` with `is_backgrounded`, Bash's `run_in_background`): its call's immediate
 *   result is not its end; its `task_notification` is (completed: delivered; stopped: cancelled; failed: delivered,
 *   with the error), so a background command still running at Stop is in flight at Stop;
 * - the `result` message: `total_cost_usd` on the run span (`afterstop.run.cost_usd`);
 * - the iteration's end: what is still open ends (a tool without a result: cancelled after a Stop, else dropped),
 *   and a run started for the query ends (acknowledged, when it was stopped).
 */
type Json = Record<string, unknown>;

/** The CLI's built-in tools that only read. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['Read', 'Grep', 'Glob', 'LS', 'NotebookRead', 'WebFetch', 'WebSearch', 'TodoRead', 'BashOutput', 'ListMcpResourcesTool', 'ReadMcpResourceTool']);

/**
 * A tool result saying its call did not run to its end: Claude Code writes "[Request interrupted by user for tool
 * use]", or, for a call stopped by `interrupt()`, "The user doesn't want to proceed with this tool use. … this call
 * was stopped while running" (0.3.337).
 */
const INTERRUPTED = /interrupt|abort|cancel|stopped while running|doesn't want to proceed/i;

const MAX_OPEN = 256;

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => (typeof (c as Json | null)?.['text'] === 'string' ? ((c as Json)['text'] as string) : '')).join(' ') : '';

/** A tool of an in-process MCP server (`createSdkMcpServer`): its handler runs in the app's process, in its call's context. */
export interface InProcessTool {
  /** As the CLI names it: `mcp__{server key}__{tool}`. */
  name: string;
  effect: ToolEffect;
}

/** An MCP tool's effect class from its annotations: readOnlyHint `read`, destructiveHint `irreversible`, idempotentHint `idempotent`, else `unknown`. */
export function effectOf(annotations: unknown): ToolEffect {
  const a = (annotations ?? {}) as Json;
  return a['readOnlyHint'] === true ? 'read' : a['destructiveHint'] === true ? 'irreversible' : a['idempotentHint'] === true ? 'idempotent' : 'unknown';
}

export class ClaudeMessages {
  private readonly tools = new Map<string, ToolCall>();
  /** Tool calls whose work went on in the background (their immediate result is not their end). */
  private readonly background = new Set<string>();
  /** The model call of each agent (the main loop: '', a subagent: its parent tool use id) whose stream is open. */
  private readonly models = new Map<string, { call: ModelCall; id: string | undefined; finish: string[] }>();
  /** Model turns (message ids) already recorded from their partial messages. */
  private readonly streamed = new Set<string>();
  private ended = false;

  constructor(
    readonly run: Run,
    /** The run was started for this query: it ends with it. */
    private readonly own: boolean,
    /** The app's abortController's signal. */
    private readonly signal: AbortSignal | undefined,
    /** The tools of the query's in-process MCP servers, by the CLI's name. */
    private readonly inProcess: ReadonlyMap<string, InProcessTool> = new Map(),
  ) {}

  /**
   * The call an in-process MCP tool's handler is for (the CLI's `tools/call` carries the tool use id): the one
   * its `tool_use` started, or, when the handler runs before the app has read that message, started now.
   */
  has(id: string): boolean {
    return this.tools.has(id);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  callFor(id: string, name: string, input: unknown): ToolCall | undefined {
    if (this.ended) return undefined;
    if (!this.tools.has(id) && this.tools.size < MAX_OPEN) this.startTool(id, name, input);
    return this.tools.get(id);
  }

  /** One message the SDK yielded. */
  message(m: Json): void {
    if (this.ended) return;
    switch (m['type']) {
      case 'stream_event':
        return this.streamEvent(m['event'] as Json | undefined, agentOf(m));
      case 'assistant':
        return this.assistant(m);
      case 'user':
        return this.user(m);
      case 'result':
        if (typeof m['total_cost_usd'] === 'number') annotateRun(this.run, { [ATTR_RUN_COST_USD]: m['total_cost_usd'] });
        return;
      case 'system':
        return this.task(m);
    }
  }

  /** A background task (Bash's `run_in_background`): its call goes on past its immediate result, until its notification. */
  private task(m: Json): void {
    const id = m['tool_use_id'];
    if (typeof id !== 'string' || !this.tools.has(id)) return;
    if (m['subtype'] === 'task_started' && m['is_backgrounded'] === true && this.background.size < MAX_OPEN) this.background.add(id);
    else if (m['subtype'] === 'task_notification' && this.background.has(id)) {
      const call = this.tools.get(id) as ToolCall;
      this.tools.delete(id);
      this.background.delete(id);
      const status = m['status'];
      if (status === 'completed') endToolCall(call, { result: 'delivered' });
      else if (status === 'stopped') endToolCall(call, { result: 'cancelled' });
      else endToolCall(call, { error: Object.assign(new Error(typeof m['summary'] === 'string' ? m['summary'].slice(0, 200) : 'the task failed'), { name: 'ToolError' }), result: 'delivered' });
    }
  }

  private streamEvent(event: Json | undefined, agent: string): void {
    switch (event?.['type']) {
      case 'message_start': {
        const message = (event['message'] ?? {}) as Json;
        this.endModel(agent, { complete: false });
        const call = this.run.startModelCall({ provider: 'anthropic', model: typeof message['model'] === 'string' ? message['model'] : 'unknown' });
        const id = typeof message['id'] === 'string' ? message['id'] : undefined;
        if (id !== undefined) this.sawStream(id);
        const usage = message['usage'] as Json | undefined;
        if (typeof usage?.['input_tokens'] === 'number') call.usage({ inputTokens: usage['input_tokens'] });
        this.models.set(agent, { call, id, finish: [] });
        return;
      }
      case 'content_block_delta':
        this.models.get(agent)?.call.chunk();
        return;
      case 'message_delta': {
        const open = this.models.get(agent);
        if (open === undefined) return;
        const reason = (event['delta'] as Json | undefined)?.['stop_reason'];
        if (typeof reason === 'string') open.finish.push(reason);
        const usage = event['usage'] as Json | undefined;
        if (typeof usage?.['output_tokens'] === 'number') open.call.usage({ outputTokens: usage['output_tokens'] });
        return;
      }
      case 'message_stop':
        this.endModel(agent, { complete: true });
        return;
    }
  }

  /** A model turn recorded (bounded: the oldest ids go first; a turn's messages come together). */
  private sawStream(id: string): void {
    if (this.streamed.size >= MAX_OPEN) this.streamed.delete(this.streamed.values().next().value as string);
    this.streamed.add(id);
  }

  private endModel(agent: string, how: { complete: boolean }): void {
    const open = this.models.get(agent);
    if (open === undefined) return;
    this.models.delete(agent);
    open.call.end(how.complete ? { finishReasons: open.finish } : { aborted: true });
  }

  private assistant(m: Json): void {
    const message = (m['message'] ?? {}) as Json;
    const id = typeof message['id'] === 'string' ? message['id'] : undefined;
    const agent = agentOf(m);
    // A turn the CLI cut (the Stop reached it mid-stream).
    if (m['aborted'] === true) this.endModel(agent, { complete: false });
    // No partial messages for it: the whole model call is this message.
    else if (id === undefined || !this.streamed.has(id)) {
      if (id !== undefined) this.sawStream(id);
      const call = this.run.startModelCall({ provider: 'anthropic', model: typeof message['model'] === 'string' ? message['model'] : 'unknown' });
      const usage = message['usage'] as Json | undefined;
      call.usage({
        ...(typeof usage?.['input_tokens'] === 'number' ? { inputTokens: usage['input_tokens'] } : {}),
        ...(typeof usage?.['output_tokens'] === 'number' ? { outputTokens: usage['output_tokens'] } : {}),
      });
      call.end(typeof message['stop_reason'] === 'string' ? { finishReasons: [message['stop_reason']] } : {});
    }
    for (const block of Array.isArray(message['content']) ? (message['content'] as Json[]) : []) {
      if (block?.['type'] !== 'tool_use' || typeof block['id'] !== 'string' || typeof block['name'] !== 'string') continue;
      if (this.tools.has(block['id']) || this.tools.size >= MAX_OPEN) continue;
      this.startTool(block['id'], block['name'], block['input']);
    }
  }

  private startTool(id: string, name: string, input: unknown): void {
    const own = this.inProcess.get(name);
    if (own !== undefined) {
      // Its handler runs here, in the call's context: its commits are seen.
      this.tools.set(id, this.run.startTool({ name, callId: id, effect: own.effect, detectCommits: httpCommitsDetected(), arguments: input }));
      return;
    }
    const read = READ_ONLY_TOOLS.has(name);
    const call = this.run.startTool({ name, callId: id, effect: read ? 'read' : 'unknown', arguments: input });
    if (!read) toolOutOfSight(call, name.startsWith('mcp__') ? OUT_OF_SIGHT_MCP : OUT_OF_SIGHT_SUBPROCESS);
    this.tools.set(id, call);
  }

  private user(m: Json): void {
    const content = ((m['message'] ?? {}) as Json)['content'];
    if (!Array.isArray(content)) return;
    for (const block of content as Json[]) {
      if (block?.['type'] !== 'tool_result' || typeof block['tool_use_id'] !== 'string') continue;
      const call = this.tools.get(block['tool_use_id']);
      if (call === undefined || this.background.has(block['tool_use_id'])) continue;
      this.tools.delete(block['tool_use_id']);
      const said = text(block['content']);
      // The Bash tool's structured result says whether its command was interrupted.
      const interrupted = (m['tool_use_result'] as Json | undefined)?.['interrupted'] === true || (block['is_error'] === true && INTERRUPTED.test(said));
      if (block['is_error'] !== true && !interrupted) endToolCall(call, { result: 'delivered' });
      else {
        const error = Object.assign(new Error(said.slice(0, 200) || 'the tool failed'), { name: interrupted ? 'AbortError' : 'ToolError' });
        endToolCall(call, { error, result: interrupted ? 'cancelled' : 'delivered' });
      }
    }
  }

  /** The SDK's iteration ended (`error`: it threw). */
  iterationEnded(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const stopped = this.run.cancelState !== 'none' || this.signal?.aborted === true;
    for (const agent of [...this.models.keys()]) this.endModel(agent, { complete: false });
    for (const call of this.tools.values()) safely('claude-agent-sdk tool end', () => endToolCall(call, { result: stopped ? 'cancelled' : 'dropped' }), undefined);
    this.tools.clear();
    // The SDK throws a plain Error ("Operation aborted") once the app aborted: that is the Stop's end.
    if (this.own) endStoppedRun(this.run, error, error === undefined || stopped);
  }
}

const agentOf = (m: Json): string => (typeof m['parent_tool_use_id'] === 'string' ? m['parent_tool_use_id'] : '');
