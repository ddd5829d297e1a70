import { InputError } from '../errors.js';
import { skippedPlace } from '../report-evidence.js';
import { EXIT_USAGE, type ExitCode } from './exit-codes.js';

/** What every command says on stderr, said the same way. */

/** Name the first skipped input lines (file:line: reason; a whole file or folder by its path), and how many more there are. */
export function printSkipped(skipped: readonly { file: string; line: number; reason: string }[], hint = '', total = skipped.length): void {
  for (const s of skipped.slice(0, 20)) process.stderr.write(`afterstop: skipped ${skippedPlace(s)}: ${s.reason}\n`);
  if (total > 20) process.stderr.write(`afterstop: ... and ${total - Math.min(20, skipped.length)} more skipped${hint}\n`);
}

/** Bad input or usage (an InputError) is said on stderr and exits 2; anything else is a bug, and is thrown on. */
export function inputErrorExit(error: unknown): ExitCode {
  if (!InputError.isInstance(error)) throw error;
  process.stderr.write(`afterstop: ${error.message}\n`);
  return EXIT_USAGE;
}
