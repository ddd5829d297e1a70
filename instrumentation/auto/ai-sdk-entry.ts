import type { Context } from '@opentelemetry/api';
import { callContext, endStoppedRun, joinOrStartRun, safely, withRunSignal, type Run } from '../adapter-api.js';
import { AI_SDK_FRAMEWORK } from './ai-sdk-model.js';
import { afterstopTelemetry, contextWithEntry, globalIntegrations } from './ai-sdk-telemetry.js';

/**
 * An AI SDK 7 entry point (generateText, streamText, a ToolLoopAgent's
 * generate / stream) as afterstop sees it before the SDK's hooks run: the
 * options the app passed hold the two things the hooks never show, the
 * abort signal (the Stop, at the moment it is pressed) and where the call's
 * telemetry goes. So the call starts its run here (the signal is its cancel
 * request), runs in the run's context (so that other integrations, such as
 * `@ai-sdk/otel`, nest their spans in it), and has afterstop's integration
 * first in its list (innermost: a tool body runs in afterstop's tool context,
 * where the HTTP commit detector finds it).
 * Everything else is recorded by the integration (ai-sdk-telemetry.ts). A
 * call whose telemetry is switched off (`isEnabled: false`) runs afterstop's
 * integration alone: `node --import afterstop/register` is the app's word
 * that it wants its Stops recorded, as in 5 and 6, where that flag only kept
 * the SDK's own spans away (and apps carry it over to 7).
 */
type Json = Record<string, unknown>;

const CONVERSATION_KEYS = ['conversationId', 'sessionId', 'threadId', 'chatId'];

export class AiSdkHookedRun {
  private readonly run: Run;
  private readonly own: boolean;

  constructor(options: Json) {
    const telemetry = telemetryOf(options);
    const metadata = { ...((telemetry['metadata'] ?? {}) as Json), ...((options['runtimeContext'] ?? {}) as Json) };
    ({ run: this.run, own: this.own } = joinOrStartRun({
      framework: AI_SDK_FRAMEWORK,
      signal: options['abortSignal'] instanceof AbortSignal ? options['abortSignal'] : undefined,
      agentName: telemetry['functionId'],
      conversationId: CONVERSATION_KEYS.map((k) => metadata[k]).find((v) => typeof v === 'string' && v !== ''),
    }));
  }

  /** The context the SDK call runs in: the run's, with the token its start claims. */
  get context(): Context | undefined {
    return contextWithEntry(callContext(this.run, this.own), this.run, this.own);
  }

  /** The options the SDK gets: the app's, with afterstop's integration first in the call's list. */
  options(options: Json, deadline = true): Json {
    // With a guard deadline, the call's abort signal also aborts at it.
    const observed = this.withIntegration(options);
    return deadline ? (withRunSignal(this.run, observed, 'abortSignal') as Json) : observed;
  }

  /** An agent call's options: the guard's deadline on their abortSignal, nothing else. */
  signalled(options: Json): Json {
    return withRunSignal(this.run, options, 'abortSignal') as Json;
  }

  private withIntegration(options: Json): Json {
    const telemetry = telemetryOf(options);
    // Switched off for the call (in 5 and 6, `isEnabled: false` only kept the SDK's own spans away, and
    // apps carried it over): the app's integrations stay off, afterstop's alone runs, as under 5 and 6.
    if (telemetry['isEnabled'] === false) return { ...options, telemetry: { ...telemetry, isEnabled: true, integrations: [afterstopTelemetry] } };
    const listed = telemetry['integrations'] ?? globalIntegrations();
    // First: innermost, so that a tool body runs in afterstop's tool context (another integration's
    // executeTool, such as @ai-sdk/otel's, runs the body in a context of its own making, without afterstop's).
    const integrations = [afterstopTelemetry, ...(Array.isArray(listed) ? listed : [listed]).filter((i) => i !== afterstopTelemetry)];
    return { ...options, telemetry: { ...telemetry, integrations } };
  }

  /** The call threw before the SDK started it: the run is over. */
  failed(error: unknown): void {
    if (this.own) endStoppedRun(this.run, error, false);
  }

  /** A streamed result: the integration follows it. */
  watchResult(): void {}

  /** generateText's promise: once settled, the run is over (the hooks ended it already, unless the SDK failed before its start). */
  settled<T>(promise: Promise<T>): Promise<T> {
    const end = (error?: unknown): void =>
      safely(
        'ai-sdk result',
        () => {
          if (this.own) endStoppedRun(this.run, error, error === undefined || this.run.signal.aborted);
        },
        undefined,
      );
    return promise.then(
      (value) => {
        end();
        return value;
      },
      (error: unknown) => {
        end(error);
        throw error;
      },
    );
  }
}

/** The call's telemetry settings (`telemetry`, or the older `experimental_telemetry`). */
function telemetryOf(options: Json): Json {
  const t = options['telemetry'] ?? options['experimental_telemetry'];
  return t !== null && typeof t === 'object' ? (t as Json) : {};
}
