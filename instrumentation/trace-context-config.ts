import { hostMatcher, type HostMatcher } from './guard/index.js';
import type { TraceContextOptions } from './types.js';

/**
 * Whether a tool's HTTP requests carry W3C trace context (request-span.ts), as
 * it applies now: from `setup({ traceContext })` first, then
 * `AFTERSTOP_TRACE_CONTEXT` (`off`, `false`, `0`, `no`: none) and
 * `AFTERSTOP_TRACE_CONTEXT_EXCLUDE_HOSTS` (the guard's host patterns:
 * `api.example.com`, `*.example.com`, `*`), else on for every host. What is
 * set in code wins over the environment, each setting on its own.
 */
export interface ResolvedTraceContext {
  enabled: boolean;
  /** The hosts that get no trace context; undefined: none excluded. */
  excluded: HostMatcher | undefined;
}

type Env = Record<string, string | undefined>;

const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function resolveTraceContext(options: TraceContextOptions = {}, env: Env = process.env): ResolvedTraceContext {
  const raw = env['AFTERSTOP_TRACE_CONTEXT']?.trim();
  const enabled = typeof options.enabled === 'boolean' ? options.enabled : raw === undefined || !/^(off|false|0|no)$/i.test(raw);
  const hosts = Array.isArray(options.excludeHosts) ? options.excludeHosts.map(String) : list(env['AFTERSTOP_TRACE_CONTEXT_EXCLUDE_HOSTS'] ?? '');
  return { enabled, excluded: hosts.length > 0 ? hostMatcher(hosts) : undefined };
}
