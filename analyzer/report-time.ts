/** The times of a report's window in ns since the epoch, the same for DuckDB and ClickHouse. */

/**
 * The latest time a window's end is taken as: 2261-07-19, well inside what a signed 64-bit count of ns since
 * the epoch holds (to 2262-04-11; the queries add a day or two to the ends of a window).
 */
export const LATEST_NS = 9_200_000_000_000_000_000n;

/**
 * A time as ns since the epoch (NULL for an open end), the same for DuckDB and ClickHouse: a time after
 * {@link LATEST_NS} (`--until 9999-12-31`) is taken as it, one before 1970 as 1970 (no span is stamped before
 * it). So `--until 9999-12-31` is every run and `--since 9999-01-01` none, in both engines.
 */
export const toNs = (date: Date | undefined): bigint | null => {
  if (date === undefined) return null;
  const ns = BigInt(date.getTime()) * 1_000_000n;
  return ns > LATEST_NS ? LATEST_NS : ns < 0n ? 0n : ns;
};

/** A run that starts more than this after the report's time is stamped in the future (clock skew, bad data). */
export const FUTURE_TOLERANCE_MS = 86_400_000;

/** Where the future begins for a report made at `now`: its time and {@link FUTURE_TOLERANCE_MS}. */
export const futureFromNs = (now: Date | undefined): bigint => toNs(new Date((now ?? new Date()).getTime() + FUTURE_TOLERANCE_MS)) ?? LATEST_NS;
