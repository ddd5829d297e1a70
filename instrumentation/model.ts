import { performance } from 'node:perf_hooks';
import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { hrTime } from './otel-compat.js';
import { isAbortError } from './errors.js';
import { errorMessage, errorType } from './error-attributes.js';
import type { RunScope } from './internal-types.js';
import { recordModelCallAfterStop, recordTokensAfterStop } from './live-metrics.js';
import { reportInternalError, safely } from './safe.js';
import { contentEnabled, setContent } from './content.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_MODEL_ABORTED,
  ATTR_MODEL_OUTPUT_TOKENS_AFTER_CANCEL,
  ATTR_MODEL_OUTPUT_TOKENS_STREAMED,
  ATTR_MODEL_USAGE_SOURCE,
  GEN_AI_OPERATION_CHAT,
} from './semconv.js';
import type { ModelCall, ModelCallOptions, ModelEndOptions, ModelUsage, UsageSource } from './types.js';

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/**
 * One model call. Counts the output tokens the client received, and how many
 * of them arrived after the run's cancel request: the tokens billed after Stop.
 */
export class InstrumentedModelCall implements ModelCall {
  private readonly span: Span;
  private readonly startedAt = performance.now();
  private firstChunkAt: number | undefined;
  private streamed = 0;
  private afterCancel = 0;
  private cancelSeen = false;
  /** The call started after its run's Stop: all its output is billed after it (live-metrics.ts). */
  private startedAfterStop = false;
  private reported: ModelUsage | undefined;
  private ended = false;
  private readonly model: string;
  /** Its start number in the run (RunScope.childStarted). */
  private readonly started: number;

  constructor(
    private readonly run: RunScope,
    options: ModelCallOptions,
  ) {
    const operation = options.operation ?? GEN_AI_OPERATION_CHAT;
    const attributes: Attributes = Object.assign({}, run.common, {
      [ATTR_GEN_AI_OPERATION_NAME]: operation,
      [ATTR_GEN_AI_PROVIDER_NAME]: options.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: options.model,
    });
    setContent(attributes, ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, options.systemInstructions, 'system.instructions', options.model);
    setContent(attributes, ATTR_GEN_AI_INPUT_MESSAGES, options.inputMessages, 'input.messages', options.model);
    this.model = options.model;
    this.span = run.tracer.startSpan(`${operation} ${options.model}`, { kind: SpanKind.CLIENT, startTime: hrTime(), attributes }, run.context);
    this.cancelSeen = run.cancelState !== 'none';
    this.startedAfterStop = this.cancelSeen;
    if (this.cancelSeen) recordModelCallAfterStop(run.common, options.model);
    this.started = run.childStarted('model');
    // Callers pass these around as callbacks (`stream.on('data', call.chunk)`): bind.
    this.chunk = this.chunk.bind(this);
    this.usage = this.usage.bind(this);
    this.end = this.end.bind(this);
  }

  /** The run's context with this call's span active: what the SDK's own work (its HTTP request, its own spans) runs in. */
  get context(): Context {
    return trace.setSpan(this.run.context, this.span);
  }

  chunk(outputTokens = 1): void {
    if (this.ended) return;
    const n = tokenCount(outputTokens) ?? 0;
    if (this.firstChunkAt === undefined) this.firstChunkAt = performance.now();
    this.streamed += n;
    if (this.cancelSeen || this.run.cancelState !== 'none') {
      this.cancelSeen = true;
      this.afterCancel += n;
    }
  }

  usage(usage: ModelUsage): void {
    if (this.ended) return;
    this.reported = { ...this.reported, ...usage };
  }

  end(options: ModelEndOptions = {}): void {
    if (this.ended) return;
    this.ended = true;
    safely('model end', () => this.finish(options), undefined);
    this.run.childEnded('model', this.started);
  }

  private finish(options: ModelEndOptions): void {
    try {
      this.describe(options);
    } finally {
      this.span.end(hrTime());
    }
  }

  private describe(options: ModelEndOptions): void {
    const attributes: Attributes = {};
    if (this.firstChunkAt !== undefined) {
      attributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = (this.firstChunkAt - this.startedAt) / 1000;
    }
    const input = tokenCount(this.reported?.inputTokens);
    const output = tokenCount(this.reported?.outputTokens);
    let source: UsageSource = 'none';
    if (input !== undefined || output !== undefined) {
      source = 'provider';
      if (input !== undefined) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = input;
      if (output !== undefined) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = output;
    }
    if (output === undefined && this.firstChunkAt !== undefined) {
      // No final usage: what the client counted is the best figure there is.
      source = source === 'none' ? 'estimated' : source;
      attributes[ATTR_MODEL_OUTPUT_TOKENS_STREAMED] = this.streamed;
    }
    attributes[ATTR_MODEL_USAGE_SOURCE] = source;
    if (this.cancelSeen || this.run.cancelState !== 'none') {
      attributes[ATTR_MODEL_OUTPUT_TOKENS_AFTER_CANCEL] = this.afterCancel;
      // As the report counts them (METRICS.md §4): a call started after Stop, all its output (the provider's
      // figure when it gave one); one in flight at Stop, what streamed after it.
      recordTokensAfterStop(this.run.common, this.model, this.startedAfterStop ? (output ?? this.afterCancel) : this.afterCancel);
    }
    if (options.finishReasons !== undefined && options.finishReasons.length > 0) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = options.finishReasons;
    if (options.responseModel !== undefined) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = options.responseModel;
    if (options.outputText !== undefined && contentEnabled()) {
      // The GenAI conventions' shape of an output message, redacted and capped as a whole.
      const output = [{ role: 'assistant', parts: [{ type: 'text', content: options.outputText }] }];
      setContent(attributes, ATTR_GEN_AI_OUTPUT_MESSAGES, output, 'output.messages', this.model, options.outputCut === true);
    }
    const hasError = 'error' in options;
    const abortedByError = hasError && isAbortError(options.error, this.run.signal);
    const aborted = options.aborted ?? (abortedByError || (this.run.signal.aborted && (options.finishReasons?.length ?? 0) === 0));
    attributes[ATTR_MODEL_ABORTED] = aborted;
    if (hasError && !abortedByError) {
      attributes[ATTR_ERROR_TYPE] = errorType(options.error);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(options.error) });
    }
    this.span.setAttributes(attributes);
  }
}

/** A model call whose telemetry could not start: every method does nothing. */
export const NOOP_MODEL_CALL: ModelCall = { chunk() {}, usage() {}, end() {} };

export function startModelCall(run: RunScope, options: ModelCallOptions): ModelCall {
  try {
    return new InstrumentedModelCall(run, options);
  } catch (error) {
    reportInternalError('model start', error);
    return NOOP_MODEL_CALL;
  }
}
