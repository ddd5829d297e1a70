import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Write a file atomically: a temporary file beside it, renamed over it, so
 * that a reader (a dashboard, the next job) never sees half a report.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}
