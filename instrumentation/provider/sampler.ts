/**
 * The standard samplers and `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` read as sdk-trace-base 2.x
 * reads them (config.ts there): always_on, always_off, traceidratio and their parentbased_ forms; the
 * default and the fallback for an unknown name is parentbased_always_on.
 */
import { diag, isValidTraceId, SamplingDecision, trace, TraceFlags, type Context, type Sampler, type SamplingResult } from '@opentelemetry/api';
import { inspect } from 'node:util';
import { isValidParent } from './valid-parent.js';

type Env = Record<string, string | undefined>;

const ALWAYS_ON: Sampler = { shouldSample: () => ({ decision: SamplingDecision.RECORD_AND_SAMPLED }), toString: () => 'AlwaysOnSampler' };
const ALWAYS_OFF: Sampler = { shouldSample: () => ({ decision: SamplingDecision.NOT_RECORD }), toString: () => 'AlwaysOffSampler' };

/** The trace id's four 32-bit words xor-ed, below ratio × 2^32: the SDK's TraceIdRatioBasedSampler. */
function traceIdRatio(ratio: number): Sampler {
  const normal = typeof ratio !== 'number' || Number.isNaN(ratio) ? 0 : ratio >= 1 ? 1 : ratio <= 0 ? 0 : ratio;
  const upperBound = normal === 1 ? 0x100000000 : Math.floor(normal * 0xffffffff);
  const accumulate = (traceId: string): number => {
    let accumulation = 0;
    for (let i = 0; i < 32; i += 8) accumulation = (accumulation ^ Number.parseInt(traceId.slice(i, i + 8), 16)) >>> 0;
    return accumulation;
  };
  return {
    shouldSample: (_context, traceId): SamplingResult => ({
      decision: isValidTraceId(traceId) && accumulate(traceId) < upperBound ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
    }),
    toString: () => `TraceIdRatioBased{${normal}}`,
  };
}

/** Follows a valid parent's sampled flag; asks `root` for a root span. */
function parentBased(root: Sampler): Sampler {
  return {
    shouldSample(context: Context, ...rest): SamplingResult {
      const parent = trace.getSpanContext(context);
      if (!parent || !isValidParent(parent)) return root.shouldSample(context, ...rest);
      return ((parent.traceFlags & TraceFlags.SAMPLED) !== 0 ? ALWAYS_ON : ALWAYS_OFF).shouldSample(context, ...rest);
    },
    toString: () => `ParentBased{root=${root.toString()}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}`,
  };
}

/** A number from the environment as core's getNumberFromEnv reads it: blank is unset, not a number is said and unset. */
export function numberFromEnv(env: Env, key: string): number | undefined {
  const raw = env[key];
  if (raw == null || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (Number.isNaN(value)) {
    diag.warn(`Unknown value ${inspect(raw)} for ${key}, expected a number, using defaults`);
    return undefined;
  }
  return value;
}

function ratioFromEnv(env: Env): number {
  const ratio = numberFromEnv(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (ratio == null) {
    diag.error('OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.');
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`);
    return 1;
  }
  return ratio;
}

export function samplerFromEnv(env: Env): Sampler {
  const raw = env['OTEL_TRACES_SAMPLER'];
  const name = raw == null || raw.trim() === '' ? 'parentbased_always_on' : raw;
  switch (name) {
    case 'always_on':
      return ALWAYS_ON;
    case 'always_off':
      return ALWAYS_OFF;
    case 'parentbased_always_on':
      return parentBased(ALWAYS_ON);
    case 'parentbased_always_off':
      return parentBased(ALWAYS_OFF);
    case 'traceidratio':
      return traceIdRatio(ratioFromEnv(env));
    case 'parentbased_traceidratio':
      return parentBased(traceIdRatio(ratioFromEnv(env)));
    default:
      diag.error(`OTEL_TRACES_SAMPLER value "${name}" invalid, defaulting to "parentbased_always_on".`);
      return parentBased(ALWAYS_ON);
  }
}
