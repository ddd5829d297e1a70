import type { Context } from '@opentelemetry/api';
import { httpCommitsDetected } from './commit-detection.js';
import { ForeignToolCall, type ForeignSpan } from './foreign-tool.js';
import { httpGuardOn } from './guard/index.js';
import type { RunScope } from './internal-types.js';
import { foreignTools, runOf } from './run-context.js';
import type { ReadableSpan, RecordingSpan, SpanProcessor } from './provider/sdk-types.js';
import { reportInternalError, sayOnce } from './safe.js';
import { AFTERSTOP_SCOPE, ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_EXECUTE_TOOL } from './semconv.js';

/** At most this many foreign tool calls followed at once (their spans started and not ended): past it, a new one is not followed, said once. */
export const MAX_FOREIGN_TOOLS = 4096;

/** The instrumentation scope's name of a span: SDK 2.x `instrumentationScope`, 1.x `instrumentationLibrary`. */
function scopeName(span: object): string | undefined {
  const scope = (span as { instrumentationScope?: { name?: unknown } }).instrumentationScope ?? (span as { instrumentationLibrary?: { name?: unknown } }).instrumentationLibrary;
  return typeof scope?.name === 'string' ? scope.name : undefined;
}

/** A span of another instrumentation that is a tool call's: `gen_ai.operation.name = execute_tool` (Strands), or named `execute_tool …` (ADK sets its attributes only at the end). */
export function isForeignToolSpan(span: object): boolean {
  const { name, attributes } = span as { name?: unknown; attributes?: Record<string, unknown> };
  const named = typeof name === 'string' && name.startsWith(GEN_AI_OPERATION_EXECUTE_TOOL);
  if (!named && attributes?.[ATTR_GEN_AI_OPERATION_NAME] !== GEN_AI_OPERATION_EXECUTE_TOOL) return false;
  return scopeName(span) !== AFTERSTOP_SCOPE;
}

/** A run afterstop started (its RunScope), from what the context holds. */
function runScopeOf(ctx: Context): RunScope | undefined {
  const run = runOf(ctx) as Partial<RunScope> | undefined;
  return run !== undefined && typeof run.marker === 'function' && typeof run.parentStopped === 'function' ? (run as RunScope) : undefined;
}

/** How many foreign tool calls are followed now (entries of `foreignTools`). */
let followed = 0;

/** A span that was followed and never ended is collected: it is no longer followed. */
const collected = new FinalizationRegistry<undefined>(() => {
  if (followed > 0) followed--;
});

/** The number of foreign tool calls followed now (tests). */
export const foreignToolsFollowed = (): number => followed;

/**
 * Gives the tool calls of frameworks afterstop does not patch afterstop's commit detector (and the
 * guard's fence): a span processor on the tracer provider afterstop set up or joined (pipeline.ts). At a
 * foreign `execute_tool` span's start, the span is followed (run-context.ts `foreignTools`, keyed by the
 * span object, at most {@link MAX_FOREIGN_TOOLS}); at its end, no longer. Only while the HTTP commit
 * detector or the guard is on. Never throws: a failure is reported once and the span goes on unfollowed.
 */
export class ForeignToolSpanProcessor implements SpanProcessor {
  onStart(span: RecordingSpan, parentContext: Context): void {
    try {
      if (!isForeignToolSpan(span) || foreignTools.has(span)) return;
      const detects = httpCommitsDetected();
      if (!detects && !httpGuardOn()) return;
      if (followed >= MAX_FOREIGN_TOOLS) {
        sayOnce('foreign tools', `more than ${MAX_FOREIGN_TOOLS} tool calls of another instrumentation (execute_tool spans) are open at once: the commits of the next ones are not detected`);
        return;
      }
      foreignTools.set(span, new ForeignToolCall(span as ForeignSpan, parentContext, runScopeOf(parentContext), detects));
      followed++;
      collected.register(span, undefined, span);
    } catch (error) {
      reportInternalError('foreign tool span start', error);
    }
  }

  onEnd(span: ReadableSpan): void {
    try {
      const call = foreignTools.get(span);
      if (call === undefined) return;
      foreignTools.delete(span);
      collected.unregister(span);
      if (followed > 0) followed--;
      (call as ForeignToolCall).spanEnded();
    } catch (error) {
      reportInternalError('foreign tool span end', error);
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
