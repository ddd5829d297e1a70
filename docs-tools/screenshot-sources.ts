/**
 * What each screenshot in docs/screenshots/ shows: an `afterstop` command over the committed sample traces,
 * and the text it writes. `npm run screenshots` renders these texts; the staleness test
 * (test/docs/screenshots.test.ts) runs the same commands and compares the texts' sha256 with the manifest.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the commands run there, with paths relative to it, so that no text holds a checkout's path. */
export const ROOT = ((): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

export const SCREENSHOTS_DIR = 'docs/screenshots';
export const MANIFEST = `${SCREENSHOTS_DIR}/manifest.json`;
const TRACES = `${SCREENSHOTS_DIR}/sample-traces.jsonl`;
const PRICES = `${SCREENSHOTS_DIR}/sample-prices.json`;

/** The terminal the `explain` screenshot is taken in. */
export const TERMINAL = { columns: 120, rows: 45 } as const;

/**
 * The night after the sample runs (2026-09-21, 14:13 UTC): the leak report's "generated" line, fixed through
 * SOURCE_DATE_EPOCH so that the page is the same bytes on every run.
 */
const GENERATED_AT = '1790035200';

export interface Shot {
  /** The PNG under docs/screenshots/. */
  png: string;
  /** What it shows, for the manifest. */
  title: string;
  /** `afterstop`'s arguments. */
  args: string[];
  /** Set for the command (NO_COLOR is always removed). */
  env: Record<string, string>;
  /** html: a page opened in Chromium; terminal: ANSI text shown in tmux. */
  kind: 'html' | 'terminal';
}

const common = [TRACES, '--db', ':memory:', '--prices', PRICES, '--no-progress'];

export const SHOTS: readonly Shot[] = [
  {
    png: 'leak-report.png',
    title: 'The HTML leak report over the sample traces',
    args: ['leak-report', ...common, '--format', 'html'],
    env: { SOURCE_DATE_EPOCH: GENERATED_AT },
    kind: 'html',
  },
  {
    png: 'explain-html.png',
    title: "`explain 1` as HTML: the worst finding's run against its Stop",
    args: ['explain', '1', ...common, '--format', 'html'],
    env: {},
    kind: 'html',
  },
  {
    png: 'explain-terminal.png',
    title: `\`explain 1\` in a ${TERMINAL.columns}×${TERMINAL.rows} terminal (tmux), colour on`,
    args: ['explain', '1', ...common, '--format', 'table'],
    env: { FORCE_COLOR: '1', COLUMNS: String(TERMINAL.columns) },
    kind: 'terminal',
  },
];

/** The `afterstop` command as installed: the analyzer package's bin, found through node_modules. */
export const CLI_PATH = ((): string => {
  const manifest = createRequire(import.meta.url).resolve('@afterstop/analyzer/package.json');
  const { bin } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { bin: { afterstop: string } };
  return path.join(path.dirname(manifest), bin.afterstop);
})();

/** The command as a person would type it (from the repository's root). */
export function commandLine(shot: Shot): string {
  const env = Object.entries(shot.env).map(([k, v]) => `${k}=${v}`);
  return [...env, 'afterstop', ...shot.args].join(' ');
}

/** The child's environment: this one, without NO_COLOR (it would beat FORCE_COLOR), with the shot's. */
export function shotEnv(shot: Shot): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...shot.env };
  delete env['NO_COLOR'];
  if (shot.kind === 'html') delete env['FORCE_COLOR'];
  return env;
}

/** The text the manifest hashes: a page as it is; terminal text with each line's trailing blanks and the last blank lines dropped. */
export function normalised(shot: Shot, text: string): string {
  if (shot.kind === 'html') return text;
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

/** What the shot's command writes to stdout (through a pipe), normalised; a failing command throws. */
export function sourceText(shot: Shot): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...shot.args], { cwd: ROOT, env: shotEnv(shot), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve(normalised(shot, stdout)) : reject(new Error(`${commandLine(shot)} exited ${status}: ${stderr}`))));
  });
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface ManifestEntry {
  png: string;
  title: string;
  command: string;
  /** sha256 of the text shown (for the terminal: as normalised()). */
  sha256: string;
}

/** The manifest's entry for a shot whose command wrote `text`. */
export function manifestEntry(shot: Shot, text: string): ManifestEntry {
  return { png: shot.png, title: shot.title, command: commandLine(shot), sha256: sha256(text) };
}

export const manifestJson = (entries: ManifestEntry[]): string => `${JSON.stringify({ generated_by: 'npm run screenshots', screenshots: entries }, null, 2)}\n`;

/**
 * The README's sample report: the terminal report over the same sample traces as a pipe writes it (no colour,
 * 100 columns), from its first line through the first kind of finding. `npm run screenshots` writes it between
 * the README's `sample-report` markers; the staleness test holds the two equal.
 */
export const README = 'README.md';
export const SAMPLE_REPORT: Shot = {
  png: '',
  title: 'the README sample',
  args: ['leak-report', ...common, '--format', 'table'],
  env: { COLUMNS: '100' },
  kind: 'terminal',
};
const SAMPLE_START = '<!-- sample-report:start (npm run screenshots writes it) -->';
const SAMPLE_END = '<!-- sample-report:end -->';

/** The report's first screen: up to the second kind of finding (or the first table after the findings). */
export function sampleExcerpt(report: string): string {
  const lines = report.split('\n');
  const findings = lines.findIndex((l) => l.startsWith('Findings by kind'));
  const kinds = lines.map((l, i) => (i > findings && /^ {2}\S+ ×\d/.test(l) ? i : -1)).filter((i) => i >= 0);
  const tables = lines.findIndex((l, i) => i > findings && /^\S/.test(l));
  const cut = [kinds[1], tables].filter((i): i is number => i !== undefined && i > 0).sort((a, b) => a - b)[0] ?? lines.length;
  return [...lines.slice(0, cut), ...(cut < lines.length ? ['  …'] : [])].join('\n');
}

/** The README's sample block, as written between its markers. */
export const sampleBlock = (report: string): string => `${SAMPLE_START}\n\`\`\`console\n$ afterstop ${SAMPLE_REPORT.args.join(' ')}\n${sampleExcerpt(report)}\n\`\`\`\n${SAMPLE_END}`;

/** The README's current sample block (markers included), or undefined when it has none. */
export function readmeSample(readme: string): string | undefined {
  const start = readme.indexOf(SAMPLE_START);
  const end = readme.indexOf(SAMPLE_END);
  return start < 0 || end < start ? undefined : readme.slice(start, end + SAMPLE_END.length);
}

/** The README with its sample block replaced by `block`. */
export function withSample(readme: string, block: string): string {
  const current = readmeSample(readme);
  if (current === undefined) throw new Error(`${README} has no ${SAMPLE_START} … ${SAMPLE_END} block`);
  return readme.replace(current, () => block);
}
