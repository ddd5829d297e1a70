/**
 * `npm run scorecard`: every framework afterstop instruments, stopped at each
 * standard moment, measured by leak-report beside the ground truth. Markdown on
 * stdout (or `--out FILE`); `--update FILE` (repeatable) replaces the part of FILE
 * between the scorecard:start and scorecard:end markers with the table, and
 * between scorecard-summary:start and :end with its summary (summary.ts); `--html FILE` a page in the leak
 * report's style; `--json FILE` the figures; `--framework TEXT` only the rows
 * whose name contains it. Progress on stderr. Exit 1 when a figure disagrees
 * with the ground truth (other than by a stated limit) or an app failed, 2 on
 * bad usage or a file that cannot be written.
 *
 * It is a command of this repository, not of the published CLI: it needs every
 * framework it measures installed (they are dev dependencies).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { renderScorecardHtml } from './html.js';
import { renderScorecard } from './markdown.js';
import { FRAMEWORKS } from './scenarios.js';
import { scorecardSummary } from './summary.js';
import { runScorecard } from './scorecard.js';

interface Options {
  out?: string;
  update: string[];
  html?: string;
  json?: string;
  framework?: string;
}

const MARKERS = { table: ['<!-- scorecard:start -->\n', '<!-- scorecard:end -->'], summary: ['<!-- scorecard-summary:start -->\n', '<!-- scorecard-summary:end -->'] } as const;

function repoRoot(): string {
  let root = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
  return root;
}

/** FILE with the table between its markers, and the summary between its own, replaced (at least one pair there). */
export function withScorecard(file: string, text: string, markdown: string): string {
  let out = text;
  let found = false;
  for (const [kind, [start, end]] of Object.entries(MARKERS)) {
    const a = out.indexOf(start);
    const b = out.indexOf(end);
    if (a < 0 || b < a) continue;
    found = true;
    const content = kind === 'table' ? markdown : scorecardSummary(markdown);
    out = `${out.slice(0, a + start.length)}${content.trim()}\n${out.slice(b)}`;
  }
  if (!found) throw new Error(`${file} has no ${MARKERS.table[0].trim()} / ${MARKERS.table[1]} markers (nor ${MARKERS.summary[0].trim()})`);
  return out;
}

async function scorecard(options: Options): Promise<number> {
  const filter = options.framework?.toLowerCase();
  if (filter !== undefined && !FRAMEWORKS.some((f) => f.framework.toLowerCase().includes(filter))) {
    process.stderr.write(`afterstop scorecard: no framework matches --framework ${options.framework}; the rows are:\n${FRAMEWORKS.map((f) => `  ${f.framework}`).join('\n')}\n`);
    return 2;
  }
  const card = await runScorecard(repoRoot(), {
    ...(filter !== undefined ? { only: (f: string) => f.toLowerCase().includes(filter) } : {}),
    progress: (done, total, label) => {
      if (done < total) process.stderr.write(`[${done + 1}/${total}] ${label}\n`);
    },
  });
  const markdown = renderScorecard(card);
  try {
    if (options.html !== undefined) fs.writeFileSync(options.html, renderScorecardHtml(card));
    if (options.json !== undefined) fs.writeFileSync(options.json, `${JSON.stringify(card, null, 2)}\n`);
    if (options.out !== undefined) fs.writeFileSync(options.out, markdown);
    else if (options.update.length === 0) process.stdout.write(markdown);
    for (const file of options.update) {
      fs.writeFileSync(file, withScorecard(file, fs.readFileSync(file, 'utf8'), markdown));
      process.stderr.write(`afterstop scorecard: updated ${file}\n`);
    }
  } catch (error) {
    process.stderr.write(`afterstop scorecard: ${(error as Error).message}\n`);
    return 2;
  }
  // A disagreement the card explains as a known limit is said, not failed on.
  const bad = card.cells.filter((c) => !c.ran || (c.agrees !== true && c.limit === undefined));
  for (const c of bad) process.stderr.write(`afterstop scorecard: ${c.framework}, ${c.moment}: ${c.ran ? 'disagrees with the ground truth' : `did not run (${c.error ?? ''})`}\n`);
  // With the guard on: a run that failed, a disagreement no known limit explains, or a cell without a Stop that changed.
  const badGuarded = card.cells.filter((c) => c.guarded !== undefined && (!c.guarded.ran || (c.guarded.agrees !== true && c.limit === undefined) || c.guarded.unchanged === false));
  for (const c of badGuarded)
    process.stderr.write(
      `afterstop scorecard: ${c.framework}, ${c.moment}, with guard: ${!c.guarded!.ran ? `did not run (${c.guarded!.error ?? ''})` : c.guarded!.unchanged === false ? 'changed a run that was not stopped' : 'disagrees with the ground truth'}\n`,
    );
  // Against the traced service: a run that failed, a disagreement no known limit explains, or a service whose spans
  // did not join the tool's request (its trace context did not reach it).
  const badTraced = card.cells.filter((c) => c.traced !== undefined && (!c.traced.ran || (c.traced.agrees !== true && c.limit === undefined) || c.traced.joined !== true));
  for (const c of badTraced)
    process.stderr.write(
      `afterstop scorecard: ${c.framework}, ${c.moment}, service traced: ${!c.traced!.ran ? `did not run (${c.traced!.error ?? ''})` : c.traced!.joined !== true ? "the service's spans did not join the tool's request" : 'disagrees with the ground truth'}\n`,
    );
  return bad.length + badGuarded.length + badTraced.length > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  let code: Promise<number> = Promise.resolve(0);
  await new Command('scorecard')
    .description('measure every instrumented framework at each Stop moment, beside the ground truth')
    .option('--out <file>', 'write the Markdown to FILE instead of stdout')
    .option('--update <file>', 'replace the table (and its summary) between the markers in FILE (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--html <file>', 'also write an HTML page')
    .option('--json <file>', 'also write the figures as JSON')
    .option('--framework <text>', 'only the rows whose framework contains TEXT (case-insensitive)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .action((options: Options) => {
      code = scorecard(options);
    })
    .parseAsync(process.argv)
    .catch((error: { exitCode?: number }) => {
      code = Promise.resolve(error.exitCode === 0 ? 0 : 2);
    });
  process.exitCode = await code;
}
