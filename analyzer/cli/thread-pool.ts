/**
 * The size of libuv's thread pool the `afterstop` command runs with: set
 * before anything uses the pool (entry.ts), unless the user set it.
 *
 * DuckDB's Node client runs each statement on one of the pool's threads. The
 * store's statements run one at a time, but on whichever of the threads is
 * free (four by default), and each thread that has run a large statement
 * keeps memory of its own after it. The cold ingest of 10,000,000 spans
 * peaked at 1,006–1,035 MB with four threads, 937 MB with two and 803–852 MB
 * with one, and was no slower (docs/benchmarks.md). DuckDB's own threads
 * (its `threads` setting) still do each statement's work in parallel.
 */
export const CLI_THREAD_POOL_SIZE = '1';

/** Set UV_THREADPOOL_SIZE in `env` to {@link CLI_THREAD_POOL_SIZE} when the user has not set it. */
export function useCliThreadPool(env: NodeJS.ProcessEnv): void {
  if (env['UV_THREADPOOL_SIZE'] === undefined || env['UV_THREADPOOL_SIZE'] === '') env['UV_THREADPOOL_SIZE'] = CLI_THREAD_POOL_SIZE;
}
