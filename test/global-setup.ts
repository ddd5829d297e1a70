import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Every temporary file the tests write (theirs, the children's and DuckDB's)
 * goes under one directory that is removed when the run ends, whether or not
 * each worker got to clean up after itself.
 */
export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-test-'));
  process.env.TMPDIR = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
