import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { huntRuns, huntSeed } from '../../../test/helpers/hunt.js';

/**
 * The golden traces, mutated at random (fast-check): lines truncated, bytes
 * broken (invalid UTF-8 too), values of the wrong type, ids and times removed
 * or swapped, lines doubled, blank lines. The analyzer never crashes, and every
 * line is accounted for: a line that is not JSON, or holds a span it cannot
 * use, is named in input.skipped by its file and number; every figure is a
 * finite number.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const sources = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => fs.readFileSync(`${golden}${f}`, 'utf8').split('\n').filter(Boolean));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-fuzz-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Mutation =
  | { kind: 'truncate'; line: number; at: number }
  | { kind: 'byte'; line: number; at: number; byte: number }
  | { kind: 'retype'; line: number; key: string; value: string }
  | { kind: 'drop'; line: number; key: string }
  | { kind: 'double'; line: number }
  | { kind: 'blank'; line: number };

const KEYS = ['traceId', 'spanId', 'startTimeUnixNano', 'endTimeUnixNano', 'name', 'attributes', 'status', 'kind', 'resourceSpans', 'scopeSpans', 'spans', 'value', 'stringValue', 'intValue'];
const VALUES = ['null', '{}', '[]', '12', '-1', '"x"', 'true', '"99999999999999999999999"', '1e400', '"<script>alert(1)</script>"'];

const mutation = (lines: number): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), line: fc.nat(lines - 1), at: fc.nat(4000) }),
    fc.record({ kind: fc.constant('byte' as const), line: fc.nat(lines - 1), at: fc.nat(4000), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('retype' as const), line: fc.nat(lines - 1), key: fc.constantFrom(...KEYS), value: fc.constantFrom(...VALUES) }),
    fc.record({ kind: fc.constant('drop' as const), line: fc.nat(lines - 1), key: fc.constantFrom(...KEYS) }),
    fc.record({ kind: fc.constant('double' as const), line: fc.nat(lines - 1) }),
    fc.record({ kind: fc.constant('blank' as const), line: fc.nat(lines - 1) }),
  );

/** The file's lines as bytes, mutated. */
function mutate(lines: string[], mutations: Mutation[]): Buffer[] {
  const out = lines.map((l) => Buffer.from(l, 'utf8'));
  for (const m of mutations) {
    const i = Math.min(m.line, out.length - 1);
    const text = out[i]!.toString('utf8');
    switch (m.kind) {
      case 'truncate':
        out[i] = out[i]!.subarray(0, m.at % Math.max(1, out[i]!.length));
        break;
      case 'byte': {
        const b = Buffer.from(out[i]!);
        if (b.length > 0) b[m.at % b.length] = m.byte === 10 ? 32 : m.byte;
        out[i] = b;
        break;
      }
      case 'retype':
        out[i] = Buffer.from(text.replace(new RegExp(`"${m.key}":("[^"]*"|[-\\d.]+|true|false|null)`), `"${m.key}":${m.value}`));
        break;
      case 'drop':
        out[i] = Buffer.from(text.replace(new RegExp(`"${m.key}":("[^"]*"|[-\\d.]+|true|false|null),?`), ''));
        break;
      case 'double':
        out.splice(i, 0, Buffer.from(out[i]!));
        break;
      case 'blank':
        out.splice(i, 0, Buffer.alloc(0));
        break;
    }
  }
  return out;
}

const isJson = (b: Buffer): boolean => {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(b).trim();
  if (text === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

// Each case is an analyze of about a second: the unit tier tries the first 6, the e2e tier 60 (the same seed).
// FUZZ_RUNS and FUZZ_SEED for a longer hunt than the suite's (the time limit grows with the runs).
const RUNS = huntRuns('FUZZ_RUNS', { unit: 6, full: 60 });

const finite = (v: unknown): boolean => (typeof v === 'number' ? Number.isFinite(v) : v === null || typeof v !== 'object' ? true : Object.values(v as object).every(finite));

describe('the analyzer under mutated traces', () => {
  it(
    'never crashes, names every line it cannot read, and gives finite figures',
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(sources.length - 1).chain((s) => fc.tuple(fc.constant(s), fc.array(mutation(sources[s]!.length), { minLength: 1, maxLength: 6 }))),
          async ([s, mutations]) => {
            const bytes = mutate(sources[s]!, mutations);
            const file = path.join(dir, `fuzz-${run++}.jsonl`);
            fs.writeFileSync(file, Buffer.concat(bytes.flatMap((b) => [b, Buffer.from('\n')])));
            const report = await analyze({ inputs: [file], db: ':memory:' });
            const skipped = new Set(report.input.skipped.map((x) => x.line));
            for (const x of report.input.skipped) {
              expect(x.file).toBe(file);
              expect(x.line).toBeGreaterThanOrEqual(0);
              expect(x.line).toBeLessThanOrEqual(bytes.length);
              expect(x.reason.length).toBeGreaterThan(0);
            }
            // A line that is not JSON is named (or the whole file is, as line 0).
            bytes.forEach((b, i) => {
              if (!isJson(b)) expect(skipped.has(i + 1) || skipped.has(0), `line ${i + 1} of ${file}`).toBe(true);
            });
            expect(finite(report.totals)).toBe(true);
            expect(report.input.spans_read).toBeGreaterThanOrEqual(0);
          },
        ),
        { numRuns: RUNS, ...huntSeed('FUZZ_SEED', 20261129) },
      );
    },
    Math.max(120_000, RUNS * 1000),
  );
});
