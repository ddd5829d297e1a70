import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as contract from '../../../contract/index.js';

/**
 * The analyzer shares only the span contract with the instrumentation: every `afterstop.…` span or
 * attribute name its SQL reads is a value of the contract (contract/semconv.ts), or is listed here as
 * the analyzer's own with the reason. A name the instrumentation renames, or the SQL misspells, fails here.
 */
const ANALYZER_INTERNAL: Record<string, string> = {
  'afterstop.': "the contract's namespace (a prefix, not a name): every afterstop span is a marker on a run's timeline",
};

const queriesDir = fileURLToPath(new URL('../../queries/', import.meta.url));
const sqlFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sqlFiles(path.join(dir, e.name)) : e.name.endsWith('.sql') ? [path.join(dir, e.name)] : []));

/** Each `afterstop.…` literal in the SQL, with the files that hold it. */
function namesInSql(): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const file of sqlFiles(queriesDir)) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bafterstop\.[A-Za-z0-9_.-]*/g)) {
      names.set(m[0], [...(names.get(m[0]) ?? []), path.relative(queriesDir, file)]);
    }
  }
  return names;
}

describe('the span and attribute names of queries/**/*.sql', () => {
  const contractValues = new Set<string>(Object.values(contract as Record<string, unknown>).filter((v): v is string => typeof v === 'string'));

  it("are values of the span contract, or listed as the analyzer's own with a reason", () => {
    const names = namesInSql();
    // The SQL reads the contract's names (cancel, tool, model, steering, ...): the test looks at something.
    expect(names.size).toBeGreaterThan(30);
    const strangers = [...names].filter(([name]) => !contractValues.has(name) && !(name in ANALYZER_INTERNAL)).map(([name, files]) => `${name} (${[...new Set(files)].join(', ')})`);
    expect(strangers).toEqual([]);
  });

  it('lists as its own only names the SQL does use and the contract does not hold', () => {
    const names = namesInSql();
    for (const name of Object.keys(ANALYZER_INTERNAL)) {
      expect(names.has(name), name).toBe(true);
      expect(contractValues.has(name), name).toBe(false);
    }
  });
});
