/**
 * Whether this process runs the `afterstop` command (main.ts, directly or
 * through the npm bin link), and what such a process sets before anything
 * else loads. main.ts imports this module first: ES modules are evaluated in
 * the order they are imported, and DuckDB's client, which main.ts's later
 * imports load, starts libuv's thread pool as it loads (thread-pool.ts).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useCliThreadPool } from './thread-pool.js';

function runsTheCommand(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    const run = realpathSync(script);
    // main.js itself, or the package's bin (bin/afterstop.js, which imports it).
    return run === fileURLToPath(new URL('./main.js', import.meta.url)) || run === fileURLToPath(new URL('../../bin/afterstop.js', import.meta.url));
  } catch {
    return false;
  }
}

/** True when the program being run is the command (main.ts). */
export const isCommandEntry = runsTheCommand();

if (isCommandEntry) useCliThreadPool(process.env);
