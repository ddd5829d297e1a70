/**
 * `npm run dashboards`: write dashboards/*.json and the alerting rules
 * (dashboards/afterstop-alerts.yml) from the TypeScript in dashboards/src.
 * Both are committed; test/dashboards checks they are not stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALERTS_FILE, alertRulesYaml } from './alerts.js';
import { DASHBOARDS, dashboardJson } from './dashboards.js';

let root = path.dirname(fileURLToPath(import.meta.url));
while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
for (const [file, build] of Object.entries(DASHBOARDS)) {
  fs.writeFileSync(path.join(root, 'analyzer', 'dashboards', file), dashboardJson(build));
  console.log(`wrote analyzer/dashboards/${file}`);
}
fs.writeFileSync(path.join(root, 'analyzer', 'dashboards', ALERTS_FILE), alertRulesYaml());
console.log(`wrote analyzer/dashboards/${ALERTS_FILE}`);
