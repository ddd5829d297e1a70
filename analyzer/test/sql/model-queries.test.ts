import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listQueries, queriesDir } from '../../queries.js';
import { renderRowTypes } from '../../sql/row-types.js';
import { modelDir, renderModel } from '../../sql/model-queries.js';
import { generatedLine } from '../../sql/render-query.js';

/** The committed renderings of queries/model/: fresh, each from a model file, and the model written once. */
const rendered = renderModel();
const root = queriesDir();
const sqlFiles = (dir: string): string[] =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => path.join(dir, f));

describe('the leak model, written once in queries/model/', () => {
  it.each(rendered.map((q) => [q.path, q] as const))('%s is what its model file renders (run `npm run queries` after a change)', (file, q) => {
    expect(fs.readFileSync(path.join(root, file), 'utf8')).toBe(q.text);
  });

  it('every generated file has its model file, and no model file is rendered twice to one place', () => {
    const generated = [...sqlFiles('.'), ...sqlFiles('clickhouse')]
      .filter((f) => fs.readFileSync(path.join(root, f), 'utf8').startsWith('-- Generated from queries/model/'))
      .map((f) => path.normalize(f))
      .sort();
    expect(generated).toEqual(rendered.map((q) => path.normalize(q.path)).sort());
    for (const q of rendered) expect(q.text.split('\n', 1)[0]).toBe(generatedLine(q.model));
  });

  it("renders each metric for both engines; only the readers of each engine's input are one engine's own", () => {
    const models = fs
      .readdirSync(modelDir())
      .filter((f) => f.endsWith('.sql') && f !== 'fragments.sql')
      .map((f) => f.slice(0, -4));
    const one = models.filter((m) => rendered.filter((q) => q.model === m).length === 1);
    expect(one.sort()).toEqual(['macros', 'spans']);
    expect(models.length).toBeGreaterThanOrEqual(30);
  });

  it("analyzer/sql/query-rows.ts is what the queries' -- @column lines generate (run `npm run queries`)", () => {
    const file = path.join(root, '..', 'sql', 'query-rows.ts');
    expect(fs.readFileSync(file, 'utf8')).toBe(renderRowTypes(listQueries()));
  });

  it('a hand-written ClickHouse query is not also a model file (the twin would drift)', () => {
    const models = new Set(fs.readdirSync(modelDir()).map((f) => f.slice(0, -4)));
    const handWritten = sqlFiles('clickhouse')
      .filter((f) => !fs.readFileSync(path.join(root, f), 'utf8').startsWith('-- Generated'))
      .map((f) => path.basename(f, '.sql'));
    expect(handWritten.filter((f) => models.has(f))).toEqual([]);
    expect(handWritten.sort()).toEqual(['span-count', 'traces-columns']);
  });
});
