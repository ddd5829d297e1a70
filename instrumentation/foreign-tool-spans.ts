import { trace, type Context } from '@opentelemetry/api';
import { httpCommitsDetected } from './commit-detection.js';
import { ForeignToolCall, type ForeignSpan } from './foreign-tool.js';
import { httpGuardOn } from './guard/index.js';
import { traceContextOn } from './request-span.js';
import type { RunScope } from './internal-types.js';
import { foreignTools, runOf, type CommitSink } from './run-context.js';
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

/** The names GenAI spans start with: the operations of a model call or an agent, another's work (a sub-agent's), not the tool body's. */
const GEN_AI_NAMES = /^(invoke_agent|create_agent|chat|text_completion|generate_content|embeddings|call_llm|invocation|execute_tool)\b/;

/**
 * A span started in a foreign tool call's body that is its body's own work (an HTTP client span of the app's
 * `http` instrumentation, which is the active span when node:http makes the request; the app's own span):
 * not afterstop's, no GenAI span (a sub-agent's run or model call under the tool is not the tool's commit).
 */
function bodySpan(span: object): boolean {
  const { name, attributes } = span as { name?: unknown; attributes?: Record<string, unknown> };
  if (typeof name !== 'string' || GEN_AI_NAMES.test(name) || scopeName(span) === AFTERSTOP_SCOPE) return false;
  for (const key in attributes) if (key.startsWith('gen_ai.')) return false;
  return true;
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

/** Follow `span` as `call`'s, within the bound. */
function follow(span: object, call: CommitSink): void {
  if (followed >= MAX_FOREIGN_TOOLS) {
    sayOnce('foreign tools', `more than ${MAX_FOREIGN_TOOLS} tool calls of another instrumentation (execute_tool spans) are open at once: the commits of the next ones are not detected`);
    return;
  }
  foreignTools.set(span, call);
  followed++;
  collected.register(span, undefined, span);
}

/**
 * Gives the tool calls of frameworks afterstop does not patch afterstop's commit detector (and the
 * guard's fence): a span processor on the tracer provider afterstop set up or joined (pipeline.ts). At a
 * foreign `execute_tool` span's start, the span is followed (run-context.ts `foreignTools`, keyed by the
 * span object, at most {@link MAX_FOREIGN_TOOLS}), and so are the spans of its body's own work started under
 * it ({@link bodySpan}); each at its end, no longer. Only while the HTTP commit
 * detector or the guard is on. Never throws: a failure is reported once and the span goes on unfollowed.
 */
export class ForeignToolSpanProcessor implements SpanProcessor {
  onStart(span: RecordingSpan, parentContext: Context): void {
    try {
      // afterstop's own spans (every marker, every tool span) are never another's tool call nor its body's work: nothing more to look up.
      if (scopeName(span) === AFTERSTOP_SCOPE || foreignTools.has(span)) return;
      if (!isForeignToolSpan(span)) {
        // A span of the body's own work, under a followed one: the same call (found when it is the active span).
        const parent = trace.getSpan(parentContext);
        const call = parent === undefined ? undefined : foreignTools.get(parent);
        if (call !== undefined && bodySpan(span)) follow(span, call);
        return;
      }
      const detects = httpCommitsDetected();
      if (!detects && !httpGuardOn() && !traceContextOn()) return;
      follow(span, new ForeignToolCall(span as ForeignSpan, parentContext, runScopeOf(parentContext), detects));
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
      (call as ForeignToolCall).spanEnded(span);
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
