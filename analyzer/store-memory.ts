import * as os from 'node:os';

/**
 * What DuckDB's read of OTLP/JSON needs per thread: it parses each thread's
 * buffer of lines whole (measured at 10,000,000 spans: 1 thread needs about
 * 290 MB, 2 about 380 MB, 4 over 700 MB, 8 over 1 GB; the same with lines 16
 * times as long).
 */
const READ_MB_PER_THREAD = 192;

/** The smallest default: the ingest of 10,000,000 spans on 2 threads peaks at 958–997 MB with it (1.6–1.7 GB with 1 GB). */
const MIN_DEFAULT_MEMORY_MB = 512;

/**
 * DuckDB's memory limit unless AFTERSTOP_MEMORY_LIMIT says otherwise: 512 MB,
 * or 192 MB per thread where DuckDB runs more than two (it uses a thread per
 * CPU), so that the JSON read runs on every thread. The process peaks about
 * 0.45–0.5 GB above the limit. The smaller limit was not slower here: 10,000,000
 * spans, cold, 102–121 s with 512 MB against 121–128 s with 1 GB.
 */
export function defaultMemoryLimit(threads = os.availableParallelism()): string {
  return `${Math.max(MIN_DEFAULT_MEMORY_MB, READ_MB_PER_THREAD * threads)}MB`;
}

/** The memory limit a store opens with: AFTERSTOP_MEMORY_LIMIT, else {@link defaultMemoryLimit}. */
export const memoryLimitSetting = (): string => process.env['AFTERSTOP_MEMORY_LIMIT'] ?? defaultMemoryLimit();
