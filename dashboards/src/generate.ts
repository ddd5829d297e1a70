/**
 * `npm run dashboards`: write dashboards/*.json from the TypeScript in
 * dashboards/src. The JSON is committed; test/dashboards checks it is not stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARDS, dashboardJson } from './dashboards.js';

let root = path.dirname(fileURLToPath(import.meta.url));
while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
for (const [file, build] of Object.entries(DASHBOARDS)) {
  fs.writeFileSync(path.join(root, 'dashboards', file), dashboardJson(build));
  console.log(`wrote dashboards/${file}`);
}
