/**
 * `npm run queries`: render queries/model/ into queries/ (DuckDB) and
 * queries/clickhouse/ (ClickHouse). Run it after changing a model file and
 * commit what it writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { queriesDir } from '../queries.js';
import { renderModel } from './model-queries.js';

for (const q of renderModel()) {
  const target = path.join(queriesDir(), q.path);
  const old = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  if (old === q.text) continue;
  fs.writeFileSync(target, q.text);
  console.log(`wrote queries/${q.path}`);
}
