/**
 * `npm run scorecard`: every framework afterstop instruments, stopped at each
 * standard moment, measured by leak-report beside the ground truth; Markdown
 * on stdout (or `--out FILE`; `--readme FILE` replaces the part of FILE between
 * the scorecard:start and scorecard:end markers; `--html FILE` for a page in
 * the leak report's style; `--json FILE` for the figures), progress on stderr. Exit 1 when a figure disagrees with the ground
 * truth or an app failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderScorecardHtml } from './html.js';
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
const readme = arg('--readme');
const html = arg('--html');
if (html !== undefined) fs.writeFileSync(html, renderScorecardHtml(card));
if (out !== undefined) fs.writeFileSync(out, markdown);
else if (readme === undefined) process.stdout.write(markdown);
if (readme !== undefined) {
  const text = fs.readFileSync(readme, 'utf8');
  const start = '<!-- scorecard:start -->\n';
  const end = '<!-- scorecard:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${readme} has no scorecard:start / scorecard:end markers`);
  fs.writeFileSync(readme, `${text.slice(0, a + start.length)}${markdown.trim()}\n${text.slice(b)}`);
  process.stderr.write(`afterstop scorecard: updated ${readme}\n`);
}
if (json !== undefined) fs.writeFileSync(json, `${JSON.stringify(card, null, 2)}\n`);
// A disagreement the card explains as a known limit is said, not failed on.
const bad = card.cells.filter((c) => !c.ran || (c.agrees !== true && c.limit === undefined));
for (const c of bad) process.stderr.write(`afterstop scorecard: ${c.framework}, ${c.moment}: ${c.ran ? 'disagrees with the ground truth' : `did not run (${c.error ?? ''})`}\n`);
process.exitCode = bad.length > 0 ? 1 : 0;
