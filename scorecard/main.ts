/**
 * `npm run scorecard`: every framework afterstop instruments, stopped at each
 * standard moment, measured by leak-report beside the ground truth; Markdown
 * on stdout (or `--out FILE`, `--json FILE` for the figures), progress on
 * stderr. Exit 1 when a figure disagrees with the ground truth or an app failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderScorecard } from './markdown.js';
import { runScorecard } from './scorecard.js';

let root = path.dirname(fileURLToPath(import.meta.url));
while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const card = await runScorecard(root, {
  progress: (done, total, label) => {
    if (done < total) process.stderr.write(`[${done + 1}/${total}] ${label}\n`);
  },
});
const markdown = renderScorecard(card);
const out = arg('--out');
const json = arg('--json');
if (out !== undefined) fs.writeFileSync(out, markdown);
else process.stdout.write(markdown);
if (json !== undefined) fs.writeFileSync(json, `${JSON.stringify(card, null, 2)}\n`);
const bad = card.cells.filter((c) => !c.ran || c.agrees !== true);
for (const c of bad) process.stderr.write(`afterstop scorecard: ${c.framework}, ${c.moment}: ${c.ran ? 'disagrees with the ground truth' : `did not run (${c.error ?? ''})`}\n`);
process.exitCode = bad.length > 0 ? 1 : 0;
