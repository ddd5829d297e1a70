import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionMessageFunctionToolCall, ChatCompletionTool } from 'openai/resources/chat/completions';
import { CancelledError, startRun, type Run } from 'afterstop';

/**
 * A small support agent written with afterstop's manual API. It behaves like
 * many real agents do: the loop stops at once when the user presses Stop, but
 * a tool already running goes on (its result arrives late), and unless told
 * to repair its history it sends the unanswered tool call back to the model.
 */
export interface DemoAgentOptions {
  /** Base URL of the model provider (the simulator), without `/v1`. */
  providerUrl: string;
  /** Base URL of the side-effect service (the simulator). */
  effectsUrl: string;
  conversationId: string;
  model?: string;
  /** Answer unanswered tool calls with a synthetic result before the next turn. */
  repairHistory?: boolean;
  /** How long the e-mail service takes to accept a mail. */
  emailDelayMs?: number;
}

export interface TurnOptions {
  /** Press Stop this long after the turn starts. */
  stopAfterMs?: number;
  /** Press Stop this long after the first tool starts. */
  stopAfterToolStartMs?: number;
}

export interface TurnResult {
  runId: string;
  outcome: 'completed' | 'cancelled' | 'failed';
  text: string;
  error?: string;
}

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'send_email',
      description: 'Send an e-mail to a customer',
      parameters: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to'] },
    },
  },
];

/** Resolves with `promise`, or rejects as soon as `signal` aborts (the promise goes on running). */
function unlessAborted<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export class DemoAgent {
  readonly history: ChatCompletionMessageParam[] = [];
  private readonly client: OpenAI;
  private readonly model: string;
  /** Tool bodies still running after their turn was stopped. */
  private readonly stragglers = new Set<Promise<unknown>>();

  constructor(private readonly options: DemoAgentOptions) {
    this.client = new OpenAI({ baseURL: `${options.providerUrl}/v1`, apiKey: 'demo', maxRetries: 0 });
    this.model = options.model ?? 'gpt-4o';
  }

  /** Wait for tool bodies that outlived their turn (their side effects still happen). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.stragglers]);
  }

  async turn(userText: string, options: TurnOptions = {}): Promise<TurnResult> {
    const run = startRun({ agentName: 'support', conversationId: this.options.conversationId });
    const timers: NodeJS.Timeout[] = [];
    const pressStop = (ms: number): void => {
      timers.push(setTimeout(() => void run.cancel({ source: 'user', reason: 'Stop pressed' }), ms));
    };
    if (options.stopAfterMs !== undefined) pressStop(options.stopAfterMs);
    let text = '';
    try {
      if (this.options.repairHistory) this.repair(run);
      this.history.push({ role: 'user', content: userText });
      for (let step = 0; step < 8; step++) {
        run.checkpoint();
        const answer = await this.callModel(run);
        run.checkpoint();
        text = answer.text;
        this.history.push({
          role: 'assistant',
          content: answer.text || null,
          ...(answer.toolCalls.length > 0 ? { tool_calls: answer.toolCalls } : {}),
        });
        if (answer.toolCalls.length === 0) break;
        run.checkpoint();
        for (const call of answer.toolCalls) {
          if (options.stopAfterToolStartMs !== undefined && step === 0) pressStop(options.stopAfterToolStartMs);
          const output = await this.runTool(run, call);
          this.history.push({ role: 'tool', tool_call_id: call.id, content: output });
          run.checkpoint();
        }
      }
      run.end();
      return { runId: run.id, outcome: 'completed', text };
    } catch (error) {
      if (CancelledError.isInstance(error) || run.cancelState !== 'none') {
        run.acknowledge();
        run.end();
        return { runId: run.id, outcome: 'cancelled', text };
      }
      run.end({ error });
      return { runId: run.id, outcome: 'failed', text, error: error instanceof Error ? error.message : String(error) };
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  }

  private async callModel(run: Run): Promise<{ text: string; toolCalls: ChatCompletionMessageFunctionToolCall[] }> {
    const call = run.startModelCall({ provider: 'openai', model: this.model });
    let text = '';
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
    const finishReasons: string[] = [];
    try {
      const stream = await this.client.chat.completions.create({ model: this.model, messages: this.history, tools: TOOLS, stream: true, stream_options: { include_usage: true } }, { signal: run.signal });
      for await (const chunk of stream) {
        if (chunk.usage) call.usage({ inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens });
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.delta.content) {
          text += choice.delta.content;
          call.chunk(1);
        }
        for (const delta of choice.delta.tool_calls ?? []) {
          call.chunk(1);
          const slot = (toolCalls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
          if (delta.id) slot.id = delta.id;
          if (delta.function?.name) slot.function.name += delta.function.name;
          if (delta.function?.arguments) slot.function.arguments += delta.function.arguments;
        }
        if (choice.finish_reason) finishReasons.push(choice.finish_reason);
      }
      call.end({ finishReasons });
      return { text, toolCalls };
    } catch (error) {
      call.end({ error });
      throw error;
    }
  }

  /** The e-mail tool ignores the abort signal, as many tools do: once sent, the mail is gone. */
  private runTool(run: Run, call: ChatCompletionMessageFunctionToolCall): Promise<string> {
    const body = run.tool(
      {
        name: call.function.name,
        callId: call.id,
        effect: 'irreversible',
        idempotencyKey: `${this.options.conversationId}:${call.id}`,
      },
      async (tool) => {
        const url = `${this.options.effectsUrl}/effects/${encodeURIComponent(call.function.name)}?delayMs=${this.options.emailDelayMs ?? 600}`;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `${this.options.conversationId}:${call.id}` },
          body: call.function.arguments || '{}',
        });
        if (!response.ok) throw new Error(`${call.function.name} failed: HTTP ${response.status}`);
        await tool.commit();
        return response.text();
      },
    );
    this.stragglers.add(body);
    void body.finally(() => this.stragglers.delete(body)).catch(() => {});
    // The loop stops listening at Stop; the tool body does not.
    return unlessAborted(run.signal, body);
  }

  /** Answer tool calls that have no result yet, so that the provider accepts the history. */
  private repair(run: Run): void {
    const answered = new Set(this.history.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
    const missing: string[] = [];
    for (let i = 0; i < this.history.length; i++) {
      const message = this.history[i]!;
      if (message.role !== 'assistant' || !message.tool_calls) continue;
      const unanswered = message.tool_calls.filter((c) => !answered.has(c.id));
      if (unanswered.length === 0) continue;
      const synthetic: ChatCompletionMessageParam[] = unanswered.map((c) => ({
        role: 'tool',
        tool_call_id: c.id,
        content: 'The user stopped this call; its outcome is unknown.',
      }));
      this.history.splice(i + 1, 0, ...synthetic);
      missing.push(...unanswered.map((c) => c.id));
    }
    if (missing.length > 0) run.repairHistory({ strategy: 'synthetic_result', toolCallIds: missing });
  }
}
