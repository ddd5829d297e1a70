import { context } from '@opentelemetry/api';
import {
  activeRun,
  calledByFrameworkWithOwnSpans,
  contentBudget,
  contentEnabled,
  contextOf,
  endStoppedRun,
  isAbortError,
  joinOrStartRun,
  safely,
  withRunSignal,
  type ModelCall,
  type ModelEndOptions,
  type ModelUsage,
  type Run,
} from '../adapter-api.js';

/**
 * One model call made through an instrumented SDK. It belongs to the active
 * afterstop run; without one (the SDK used directly), the call is a run of its
 * own: its abort signal is the Stop, recorded as the cancel request, and the
 * end of the call after it is the acknowledgement.
 */
export interface ObservedModelCall {
  /** A chunk carrying output (one token, the usual grain of a streamed chunk, unless told). */
  chunk(outputTokens?: number): void;
  /** Output text as it arrives: kept (up to the cap) only when content capture is on. */
  text(delta: string): void;
  usage(usage: ModelUsage): void;
  finishReason(reason: string): void;
  responseModel(model: string): void;
  /** The SDK request's options as the SDK gets them: with a guard deadline, its `signal` also aborts at it. */
  requestOptions<T>(options: T): T;
  /** Run `fn` (the SDK's own call) with this call's span active. */
  within<T>(fn: () => T): T;
  /** The app stopped reading the stream (broke out of it, aborted its controller): for a call that is its own run, that is the Stop. */
  stopped(reason: string): void;
  /** The call is over: `error` when it threw, `complete` when the provider said it was done. */
  end(outcome: { error?: unknown; complete: boolean }): void;
}

export interface ModelCallStart {
  provider: string;
  /** `afterstop.framework` of the run a call makes when there is no active run. */
  framework: string;
  model: string;
  operation?: string;
  signal?: AbortSignal | undefined;
  /** The request's messages (recorded only when content capture is on). */
  inputMessages?: unknown;
  /** The request's system prompt or instructions (recorded only when content capture is on). */
  systemInstructions?: unknown;
}

const NOOP: ObservedModelCall = { chunk() {}, text() {}, usage() {}, finishReason() {}, responseModel() {}, requestOptions: (o) => o, within: (fn) => fn(), stopped() {}, end() {} };

export function observeModelCall(start: ModelCallStart): ObservedModelCall {
  return safely(
    'model call start',
    // A call made by a framework that writes its own spans (Google ADK, Strands), outside any afterstop run, is
    // in the framework's run already: as a run of its own it would count that turn twice.
    () => (activeRun() === undefined && calledByFrameworkWithOwnSpans() ? NOOP : new Observed(start)),
    NOOP,
  );
}

class Observed implements ObservedModelCall {
  private readonly run: Run;
  /** The run was made for this call alone. */
  private readonly own: boolean;
  private readonly call: ModelCall;
  private readonly reasons: string[] = [];
  private model: string | undefined;
  private ended = false;
  /** Output text so far, when content capture is on; gathering stops past the budget (the rest would be cut). */
  private output: string | undefined;
  private outputCut = false;

  constructor(private readonly start: ModelCallStart) {
    ({ run: this.run, own: this.own } = joinOrStartRun({ framework: start.framework, signal: start.signal }));
    // The content goes along; the model call records it only when capture is on.
    this.call = this.run.startModelCall({
      provider: start.provider,
      model: start.model,
      ...(start.operation ? { operation: start.operation } : {}),
      inputMessages: start.inputMessages,
      systemInstructions: start.systemInstructions,
    });
    if (contentEnabled()) this.output = '';
  }

  requestOptions<T>(options: T): T {
    return safely('model call deadline', () => withRunSignal(this.run, options, 'signal') as T, options);
  }

  text(delta: string): void {
    if (this.output === undefined || this.outputCut || typeof delta !== 'string') return;
    const budget = contentBudget();
    if (this.output.length + delta.length <= budget) this.output += delta;
    else {
      // The rest would be cut anyway: stop gathering, and say it was cut.
      this.output += delta.slice(0, Math.max(0, budget - this.output.length));
      this.outputCut = true;
    }
  }

  chunk(outputTokens = 1): void {
    safely('model chunk', () => this.call.chunk(outputTokens), undefined);
  }

  usage(usage: ModelUsage): void {
    safely('model usage', () => this.call.usage(usage), undefined);
  }

  finishReason(reason: string): void {
    if (!this.reasons.includes(reason)) this.reasons.push(reason);
  }

  responseModel(model: string): void {
    this.model = model;
  }

  within<T>(fn: () => T): T {
    const ctx = safely('model call context', () => contextOf(this.call), undefined);
    return ctx === undefined ? fn() : context.with(ctx, fn);
  }

  stopped(reason: string): void {
    if (this.ended || !this.own || this.run.signal.aborted) return;
    safely('model call stopped', () => void this.run.cancel({ source: 'user', reason }), undefined);
  }

  end(outcome: { error?: unknown; complete: boolean }): void {
    if (this.ended) return;
    this.ended = true;
    safely(
      'model call end',
      () => {
        const aborted = !outcome.complete && (outcome.error === undefined || isAbortError(outcome.error, this.start.signal) || this.start.signal?.aborted === true || this.run.signal.aborted);
        const end: ModelEndOptions = { aborted };
        if (this.reasons.length > 0) end.finishReasons = this.reasons;
        if (this.model !== undefined) end.responseModel = this.model;
        if (this.output !== undefined && this.output !== '') {
          end.outputText = this.output;
          if (this.outputCut) end.outputCut = true;
        }
        if (outcome.error !== undefined && !aborted) end.error = outcome.error;
        this.call.end(end);
        if (this.own) {
          // The SDK has stopped: for a call that was stopped, that is the acknowledgement.
          endStoppedRun(this.run, outcome.error, aborted);
        }
      },
      undefined,
    );
  }
}
