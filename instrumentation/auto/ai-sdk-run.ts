import { context, type Context, type HrTime } from '@opentelemetry/api';
import { contextOf, endStoppedRun, endToolCall, hrTime, isAbortError, joinOrStartRun, recordToolOutput, safely, startFrameworkTool, toolBodyEnded, withRunSignal, type Run, type ToolCall } from '../adapter-api.js';
import { AI_SDK_FRAMEWORK, observedModel } from './ai-sdk-model.js';
import { withExecutes } from './tool-set.js';
import { observeReadable } from './observe-readable.js';

/**
 * One `streamText` / `generateText` call of the Vercel AI SDK: an agent loop,
 * so an afterstop run (unless the app already runs one: then its model and
 * tool calls join it). What it records, from the options the app passed:
 * - the cancel request when `abortSignal` aborts (source from its reason,
 *   else `user`), or when the app cancels a stream it reads from the result
 *   (`textStream`, `fullStream`, a UI message stream, a Response body): that
 *   is a Stop too, although the SDK goes on;
 * - the acknowledgement when the SDK has stopped: a stream the app reads
 *   from the result ended (the SDK closes them last, after its own
 *   callbacks), and no other is still open; generateText: its promise
 *   settled. No callback of the app's is replaced or added;
 * - every tool call (`execute` wrapped: start, `execute_tool`, the commits
 *   its HTTP requests make), and whether its result was delivered: it was
 *   when a stream the app reads carried its `tool-result` (generateText: the
 *   promise resolved); a result still undelivered when the SDK has stopped
 *   was dropped (the SDK drops results that come back after its abort; the
 *   history keeps the call without its result);
 * - every model call (see ai-sdk-model.ts).
 * Conversation and agent come from `experimental_telemetry`: `functionId`
 * names the agent, `metadata.conversationId` (or `sessionId`, `threadId`,
 * `chatId`) the conversation.
 */
type Json = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;

const CONVERSATION_KEYS = ['conversationId', 'sessionId', 'threadId', 'chatId'];

export class AiSdkRun {
  readonly run: Run;
  /** The run was started for this call (not the app's own run). */
  private readonly own: boolean;
  private readonly sdkSignal: AbortSignal | undefined;
  /**
   * Tool calls whose body returned (or failed by an abort), waiting to know whether their result (or error)
   * was delivered: the SDK carries a tool's error into the conversation as a `tool-error` part, or drops it.
   */
  private readonly pending = new Map<string, { call: ToolCall; endTime: HrTime; failure?: { error: unknown; aborted: boolean } }>();
  private readonly delivered = new Set<string>();
  /** Streams of the result the app is reading. */
  private openStreams = 0;
  /** The SDK has stopped, with its error if it failed. */
  private sdkStopped: { error?: unknown } | undefined;
  private ended = false;

  constructor(options: Json) {
    this.sdkSignal = options['abortSignal'] instanceof AbortSignal ? options['abortSignal'] : undefined;
    const telemetry = options['experimental_telemetry'] as Json | undefined;
    const metadata = (telemetry?.['metadata'] ?? {}) as Json;
    ({ run: this.run, own: this.own } = joinOrStartRun({
      framework: AI_SDK_FRAMEWORK,
      signal: this.sdkSignal,
      agentName: telemetry?.['functionId'],
      conversationId: CONVERSATION_KEYS.map((k) => metadata[k]).find((v) => typeof v === 'string' && v !== ''),
    }));
  }

  /** The context the SDK call runs in: the run's. */
  get context(): Context | undefined {
    return this.own ? contextOf(this.run) : undefined;
  }

  /** The options the SDK gets: the app's, with the model observed and the tools wrapped. */
  options(options: Json, deadline = true): Json {
    // With a guard deadline, the call's abort signal also aborts at it.
    const observed = this.observedOptions(options);
    return deadline ? (withRunSignal(this.run, observed, 'abortSignal') as Json) : observed;
  }

  private observedOptions(options: Json): Json {
    return {
      ...options,
      model: observedModel(options['model']),
      tools: this.tools(options['tools']),
      // The SDK's own word that it stopped: a reader that cancelled its stream (a chat backend whose
      // browser went away: pipeUIMessageStreamToResponse cancels its reader) never sees the stream's end.
      onAbort: this.lifecycle(options['onAbort']),
      onFinish: this.lifecycle(options['onFinish']),
    };
  }

  /** An SDK callback that says it stopped: ours first (it never throws), then the app's, unchanged. */
  private lifecycle(app: unknown): Fn {
    const run = this;
    return function stoppedCallback(this: unknown, ...args: unknown[]): unknown {
      safely('ai-sdk stopped', () => run.stopped(), undefined);
      return typeof app === 'function' ? (app as (...a: unknown[]) => unknown).apply(this, args) : undefined;
    };
  }

  /** An agent call's options: the guard's deadline on their abortSignal, nothing else. */
  signalled(options: Json): Json {
    return withRunSignal(this.run, options, 'abortSignal') as Json;
  }

  /** streamText threw before it started (a bad model, bad settings): the run is over. */
  failed(error: unknown): void {
    this.stopped(error);
  }

  /** A streamText result: every stream the app reads from it is watched. */
  watchResult(result: unknown): void {
    const r = result as { teeStream?: Fn } | undefined;
    const tee = r?.teeStream;
    if (r === undefined || typeof tee !== 'function') return;
    const watch = this;
    // Every consumer stream of the result (textStream, fullStream, the UI message stream, the
    // Response helpers, the result's own promises) is split from the run's stream by teeStream.
    r.teeStream = function teeStream(this: unknown, ...args: unknown[]): unknown {
      const stream = tee.apply(this, args) as ReadableStream<unknown>;
      return safely('ai-sdk result stream', () => watch.consumerStream(stream), stream);
    };
  }

  /** generateText: the app gets this promise in place of the SDK's, settling the same way once afterstop has seen it settle. */
  settled<T>(promise: Promise<T>): Promise<T> {
    return promise.then(
      (value) => {
        safely(
          'ai-sdk result',
          () => {
            for (const id of [...this.pending.keys()]) this.deliver(id);
            this.stopped();
          },
          undefined,
        );
        return value;
      },
      (error: unknown) => {
        safely('ai-sdk result', () => this.stopped(error), undefined);
        throw error;
      },
    );
  }

  private consumerStream(stream: ReadableStream<unknown>): ReadableStream<unknown> {
    if (this.ended) return stream;
    let open = true;
    let finished = false;
    let lastError: unknown;
    let hasError = false;
    const closed = (): void => {
      if (!open) return;
      open = false;
      this.openStreams--;
      this.finalize();
    };
    const observed = observeReadable(stream, {
      chunk: (chunk) => {
        // teeStream's chunks are `{ part, partialOutput }` (ai 6) or the part itself (ai 5).
        const part = ((chunk as Json | undefined)?.['part'] ?? chunk) as Json | undefined;
        const type = part?.['type'];
        if ((type === 'tool-result' || type === 'tool-error') && typeof part?.['toolCallId'] === 'string') this.deliver(part['toolCallId']);
        else if (type === 'finish' || type === 'abort') finished = true;
        else if (type === 'error') {
          hasError = true;
          lastError = part?.['error'];
        }
      },
      // The run's stream ended: the SDK has stopped (failed when an error part came and no finish).
      done: () => {
        this.stopped(finished || !hasError ? undefined : (lastError ?? new Error('the AI SDK stream ended with an error')));
        closed();
      },
      error: (error) => {
        this.stopped(error);
        closed();
      },
      cancel: () => {
        this.readerCancelled();
        closed();
      },
    });
    this.openStreams++;
    return observed;
  }

  private deliver(callId: string): void {
    this.delivered.add(callId);
    const p = this.pending.get(callId);
    if (p === undefined) return;
    this.pending.delete(callId);
    endToolCall(p.call, p.failure === undefined ? { result: 'delivered' } : { error: p.failure.error, result: 'delivered' }, p.endTime);
  }

  /** The app cancelled a stream it read from the result: its Stop, although the SDK's loop goes on. */
  private readerCancelled(): void {
    if (!this.own || this.ended || this.run.cancelState !== 'none') return;
    void this.run.cancel({ source: 'user', reason: 'the app cancelled the stream it was reading' });
  }

  private stopped(error?: unknown): void {
    if (this.sdkStopped !== undefined) return;
    this.sdkStopped = error === undefined ? {} : { error };
    this.finalize();
  }

  /** Stopped, and nothing the app reads is open: results not delivered by now were dropped; the run is over. */
  private finalize(): void {
    if (this.ended || this.sdkStopped === undefined || this.openStreams > 0) return;
    this.ended = true;
    // A failure by the abort that the SDK never carried into the conversation: cancelled (METRICS.md §3).
    // (A failure after the Stop that is no abort, such as the MCP SDK's McpError wrapping the abort's reason as
    // text, was dropped all the same.)
    for (const { call, endTime, failure } of this.pending.values()) endToolCall(call, failure === undefined ? { result: 'dropped' } : { error: failure.error, result: failure.aborted ? 'cancelled' : 'dropped' }, endTime);
    this.pending.clear();
    const { error } = this.sdkStopped;
    if (this.own) endStoppedRun(this.run, error, error === undefined || isAbortError(error, this.sdkSignal));
  }

  private tools(tools: unknown): unknown {
    return withExecutes(tools, (name, execute) => this.execute(name, execute));
  }

  private execute(name: string, execute: Fn): Fn {
    const self = this;
    return function observedExecute(this: unknown, input: unknown, options: unknown): unknown {
      const callId = (options as Json | undefined)?.['toolCallId'];
      const call = startFrameworkTool('ai-sdk tool start', self.run, name, callId, input);
      if (call === undefined) return execute.call(this, input, options);
      const ctx = contextOf(call);
      let value: unknown;
      try {
        value = ctx === undefined ? execute.call(this, input, options) : context.with(ctx, () => execute.call(this, input, options));
      } catch (error) {
        self.toolEnded(call, { error });
        throw error;
      }
      // As the SDK reads it: an async iterable first (preliminary results), then a promise.
      if (isAsyncIterable(value)) return self.streamedTool(call, value);
      if (isPromiseLike(value)) {
        return Promise.resolve(value).then(
          (v) => {
            self.toolEnded(call, undefined, v);
            return v;
          },
          (error: unknown) => {
            self.toolEnded(call, { error });
            throw error;
          },
        );
      }
      self.toolEnded(call, undefined, value);
      return value;
    };
  }

  /** A tool that streams preliminary results: it ends with its last, or when the SDK stops reading it. */
  private async *streamedTool(call: ToolCall, values: AsyncIterable<unknown>): AsyncGenerator<unknown> {
    let failure: { error: unknown } | undefined;
    try {
      yield* values;
    } catch (error) {
      failure = { error };
      throw error;
    } finally {
      this.toolEnded(call, failure);
    }
  }

  /** The body returned (or threw): what became of the result is known now (an error, already delivered, the run over) or later. */
  private toolEnded(call: ToolCall, failure?: { error: unknown }, output?: unknown): void {
    safely(
      'ai-sdk tool end',
      () => {
        if (failure !== undefined) {
          // A failure whose cause chain holds an abort (an MCP client's "Request was aborted"), or any failure once
          // the run was stopped, is delivered only when the SDK carries it into the conversation (a tool-error
          // part); else it was cancelled (an abort) or dropped. A failure of a run going on is the SDK's to carry.
          const aborted = isAbortError(failure.error, this.run.signal);
          const stopped = aborted || this.run.cancelState !== 'none' || this.run.signal.aborted || this.sdkSignal?.aborted === true;
          if (!stopped) return call.end({ error: failure.error });
          if (this.delivered.has(call.callId)) return endToolCall(call, { error: failure.error, result: 'delivered' });
          if (this.ended) return endToolCall(call, { error: failure.error, result: aborted ? 'cancelled' : 'dropped' });
          this.pending.set(call.callId, { call, endTime: hrTime(), failure: { error: failure.error, aborted } });
          return toolBodyEnded(call);
        }
        recordToolOutput(call, output);
        if (this.delivered.has(call.callId)) return endToolCall(call, { result: 'delivered' });
        if (this.ended) return endToolCall(call, { result: 'dropped' });
        this.pending.set(call.callId, { call, endTime: hrTime() });
        toolBodyEnded(call);
      },
      undefined,
    );
  }
}

const isPromiseLike = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';
const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> => v !== null && typeof v === 'object' && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
