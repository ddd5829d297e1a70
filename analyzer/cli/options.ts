import { InvalidArgumentError } from 'commander';

/** Parse a non-negative number option, for commander. */
export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('not a non-negative number');
  return n;
}

/** Parse a TCP port (0 = any free port), for commander. */
export function port(value: string): number {
  const n = nonNegativeNumber(value);
  if (!Number.isInteger(n) || n > 65535) throw new InvalidArgumentError('not a port number (0-65535)');
  return n;
}
