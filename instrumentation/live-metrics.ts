import { createNoopMeter, metrics, type Attributes, type Counter, type Histogram, type MeterProvider } from '@opentelemetry/api';
import { capLabel } from './label-cap.js';
import { reportInternalError } from './safe.js';
import {
  ATTR_CANCEL_SOURCE,
  ATTR_FRAMEWORK,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_TOOL_EFFECT,
  METRIC_CANCEL_ACK_DURATION,
  METRIC_CANCEL_REQUESTS,
  METRIC_MODEL_CALLS_AFTER_STOP,
  METRIC_MODEL_OUTPUT_TOKENS_AFTER_STOP,
  METRIC_TOOL_COMMITS_AFTER_STOP,
  METRIC_TOOL_COMMITS_PREVENTED,
  METRIC_TOOL_ORPHANED_CALLS,
  METRIC_TOOL_POSSIBLE_GHOST_COMMITS,
} from './semconv.js';
import { VERSION } from './version.js';

/**
 * What Stop left behind, as OpenTelemetry metrics recorded by the
 * instrumentation the instant each fact is known (SEMCONV.md, "Live
 * metrics"): through the MeterProvider registered globally, the app's or the
 * one the SDK starts for `OTEL_METRICS_EXPORTER`, looked up again when it
 * changes (an app may register its own after afterstop started). Every fact
 * recorded here happens only after a Stop: a tool call or model call of a run
 * never stopped records nothing. Attributes are low-cardinality only: agent,
 * framework, tool, effect class, model, cancel source; never an id. Never throws.
 */

/** Cancel acknowledgement latencies, 1 ms to 10 s, in seconds. */
export const ACK_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Instruments {
  cancelRequests: Counter;
  ackDuration: Histogram;
  commitsAfterStop: Counter;
  possibleGhostCommits: Counter;
  outputTokensAfterStop: Counter;
  modelCallsAfterStop: Counter;
  orphanedCalls: Counter;
  commitsPrevented: Counter;
}

let provider: MeterProvider | undefined;
let instruments: Instruments | undefined;

/** The API's no-op counter (one object for every no-op meter): a provider whose meters give it records nothing. */
const NOOP_COUNTER = createNoopMeter().createCounter('afterstop.noop');

/** The instruments of a provider; undefined for the API's no-op one (no MeterProvider registered: nothing to record). */
function create(p: MeterProvider): Instruments | undefined {
  const meter = p.getMeter('afterstop', VERSION);
  const cancelRequests = meter.createCounter(METRIC_CANCEL_REQUESTS, { unit: '{request}', description: 'Cancel requests (the user pressed Stop, or another source asked the run to stop)' });
  if (cancelRequests === NOOP_COUNTER) return undefined;
  return {
    cancelRequests,
    ackDuration: meter.createHistogram(METRIC_CANCEL_ACK_DURATION, {
      unit: 's',
      description: 'Time from a cancel request to its acknowledgement (the loop stopped)',
      advice: { explicitBucketBoundaries: ACK_BUCKETS_S },
    }),
    commitsAfterStop: meter.createCounter(METRIC_TOOL_COMMITS_AFTER_STOP, { unit: '{commit}', description: 'Side effects known to have committed after Stop (ghost commits)' }),
    possibleGhostCommits: meter.createCounter(METRIC_TOOL_POSSIBLE_GHOST_COMMITS, {
      unit: '{commit}',
      description: 'Side effects whose outcome is not seen: a request that reached the service and whose answer was lost after Stop, or a tool in flight at Stop whose effect was out of sight',
    }),
    outputTokensAfterStop: meter.createCounter(METRIC_MODEL_OUTPUT_TOKENS_AFTER_STOP, { unit: '{token}', description: 'Model output tokens streamed after Stop, as the client counted them' }),
    modelCallsAfterStop: meter.createCounter(METRIC_MODEL_CALLS_AFTER_STOP, { unit: '{call}', description: 'Model calls started after Stop' }),
    orphanedCalls: meter.createCounter(METRIC_TOOL_ORPHANED_CALLS, { unit: '{call}', description: 'Tool calls of a stopped run that ended without their result reaching the conversation' }),
    commitsPrevented: meter.createCounter(METRIC_TOOL_COMMITS_PREVENTED, { unit: '{commit}', description: "Side effects the guard's commit fence refused after Stop (nothing was sent)" }),
  };
}

/** The instruments of the MeterProvider registered now (created once per provider); undefined without one. */
function live(): Instruments | undefined {
  const now = metrics.getMeterProvider();
  if (now !== provider) {
    instruments = create(now);
    provider = now;
  }
  return instruments;
}

/** The instruments now (for tests): undefined when no MeterProvider is registered. */
export const liveInstruments = (): unknown => live();

/** The run's low-cardinality attributes from its common ones (agent, framework), and `extra`, each capped (label-cap.ts). */
function labels(common: Attributes, extra: Attributes): Attributes {
  const out: Attributes = { [ATTR_FRAMEWORK]: capLabel(ATTR_FRAMEWORK, common[ATTR_FRAMEWORK] ?? 'manual') };
  const agent = common[ATTR_GEN_AI_AGENT_NAME];
  if (agent !== undefined) out[ATTR_GEN_AI_AGENT_NAME] = capLabel(ATTR_GEN_AI_AGENT_NAME, agent);
  for (const key in extra) out[key] = capLabel(key, extra[key]);
  return out;
}

const record = (where: string, body: (i: Instruments) => void): void => {
  try {
    const i = live();
    // Costless without a MeterProvider: no attributes are even made.
    if (i !== undefined) body(i);
  } catch (error) {
    reportInternalError(`live metrics: ${where}`, error);
  }
};

/** A run was asked to stop. */
export function recordCancelRequest(common: Attributes, source: string): void {
  record('cancel request', (i) => i.cancelRequests.add(1, labels(common, { [ATTR_CANCEL_SOURCE]: source })));
}

/** The run acknowledged its cancel request `seconds` after it. */
export function recordCancelAck(common: Attributes, seconds: number): void {
  record('cancel ack', (i) => i.ackDuration.record(Math.max(0, seconds), labels(common, {})));
}

/** A commit marker written after Stop: known (manual, a response to a request sent after Stop) or possible (request_sent, or a response whose request was sent before Stop: across it). */
export function recordCommitAfterStop(common: Attributes, tool: string, effect: string, possible: boolean): void {
  record('commit', (i) => (possible ? i.possibleGhostCommits : i.commitsAfterStop).add(1, labels(common, { [ATTR_GEN_AI_TOOL_NAME]: tool, [ATTR_TOOL_EFFECT]: effect })));
}

/** The commit fence refused a tool's mutating request: its run was stopped. */
export function recordCommitPrevented(common: Attributes, tool: string, effect: string): void {
  record('commit prevented', (i) => i.commitsPrevented.add(1, labels(common, { [ATTR_GEN_AI_TOOL_NAME]: tool, [ATTR_TOOL_EFFECT]: effect })));
}

/** A model call of a stopped run ended with `tokens` output tokens streamed after Stop. */
export function recordTokensAfterStop(common: Attributes, model: string, tokens: number): void {
  if (tokens <= 0) return;
  record('tokens', (i) => i.outputTokensAfterStop.add(tokens, labels(common, { [ATTR_GEN_AI_REQUEST_MODEL]: model })));
}

/** A model call started after its run's Stop. */
export function recordModelCallAfterStop(common: Attributes, model: string): void {
  record('model call', (i) => i.modelCallsAfterStop.add(1, labels(common, { [ATTR_GEN_AI_REQUEST_MODEL]: model })));
}

/** A tool call of a stopped run ended without its result reaching the conversation (late, dropped, cancelled). */
export function recordOrphanedCall(common: Attributes, tool: string, effect: string): void {
  record('orphaned call', (i) => i.orphanedCalls.add(1, labels(common, { [ATTR_GEN_AI_TOOL_NAME]: tool, [ATTR_TOOL_EFFECT]: effect })));
}
