/**
 * `npm run queries`: render queries/model/ into queries/ (DuckDB) and
 * queries/clickhouse/ (ClickHouse). Run it after changing a model file and
 * commit what it writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listQueries, queriesDir } from '../queries.js';
import { renderModel } from './model-queries.js';
import { renderRowTypes } from './row-types.js';

for (const q of renderModel()) {
  const target = path.join(queriesDir(), q.path);
  const old = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  if (old === q.text) continue;
  fs.writeFileSync(target, q.text);
  console.log(`wrote queries/${q.path}`);
}

// The row types, from the headers just written (the source file beside this one's build).
const rowTypes = fileURLToPath(new URL('../../../analyzer/sql/query-rows.ts', import.meta.url));
const text = renderRowTypes(listQueries());
if (!fs.existsSync(rowTypes) || fs.readFileSync(rowTypes, 'utf8') !== text) {
  fs.writeFileSync(rowTypes, text);
  console.log('wrote analyzer/sql/query-rows.ts');
}
