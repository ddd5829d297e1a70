import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (where package.json is), from the source tree or from dist/. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('afterstop bench: no package.json above this file');
    dir = up;
  }
  return dir;
}

/**
 * Run `script` as an ES module in its own Node process from the project root
 * (`nodeArgs` before it, `env` added to ours); its last stdout line is its
 * result, as JSON. A child that exits non-zero rejects with its stderr.
 */
export function runScript<T>(script: string, options: { nodeArgs?: string[]; env?: Record<string, string>; what: string }): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--input-type=module', '-e', script], {
      cwd: projectRoot(),
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench ${options.what} failed: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as T);
    });
  });
}

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Where the middle half of some values lies: their lower and upper quartiles. */
export interface Spread {
  low: number;
  high: number;
}

/** The lower and upper quartiles (nearest rank). */
export function quartiles(xs: number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { low: at(0.25), high: at(0.75) };
}

/** The quartiles of paired rounds' ratios, each round's `a` over the same round's `b`: how far one round moves from the next. */
export const pairedSpread = (a: number[], b: number[]): Spread => quartiles(a.map((x, i) => x / b[i]!));
