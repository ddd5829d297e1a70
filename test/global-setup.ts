import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Every temporary file the tests write (theirs, the children's and DuckDB's)
 * goes under one directory that is removed when the run ends, whether or not
 * each worker got to clean up after itself. Each project inherits this setup
 * (vitest runs it once per project, in the one main process): the first makes
 * the directory, the others use it, so that it is not nested once per
 * project (Chromium's socket path under TMPDIR must stay short).
 */
export default function setup(): (() => void) | undefined {
  if (process.env['AFTERSTOP_TEST_TMPDIR'] !== undefined) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-test-'));
  process.env['AFTERSTOP_TEST_TMPDIR'] = dir;
  process.env.TMPDIR = dir;
  return () => {
    fs.rmSync(dir, { recursive: true, force: true });
    delete process.env['AFTERSTOP_TEST_TMPDIR'];
  };
}
