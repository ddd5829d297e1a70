/**
 * `npm run screenshots`: docs/screenshots/*.png and their manifest, and the README's sample report, from the
 * committed sample traces.
 * The HTML leak report and `explain --format html` are opened in headless Chromium (playwright-core;
 * CHROMIUM_PATH, else /usr/bin/chromium); `explain` in the terminal is run in tmux and its screen, read back
 * with its colours, drawn as a dark terminal in Chromium. The manifest holds each command and the sha256 of
 * the text shown, which test/docs/screenshots.test.ts recomputes: a renderer change makes the images stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { escapeHtml } from '@afterstop/analyzer';
import { cellsHtml, cellsKey, parseAnsi, TERMINAL_BG, TERMINAL_FG, wrapCells } from './ansi-cells.js';
import {
  CLI_PATH,
  commandLine,
  MANIFEST,
  manifestEntry,
  manifestJson,
  normalised,
  README,
  ROOT,
  SAMPLE_REPORT,
  sampleBlock,
  SCREENSHOTS_DIR,
  SHOTS,
  shotEnv,
  sourceText,
  TERMINAL,
  withSample,
  type ManifestEntry,
  type Shot,
} from './screenshot-sources.js';
import { runInTmux } from './tmux-capture.js';

/** The browser's width for the HTML pages: a laptop's window; low, so that a short page's image ends with the page. */
const VIEWPORT = { width: 1200, height: 400 };
/** Taller pages are cut here: the image shows the first screens, where a reader looks first. */
const MAX_HEIGHT = 2400;

/** The terminal's screen as a page: the captured cells in a <pre>, dark, in a monospace font. */
function terminalPage(screen: string, shot: Shot): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(commandLine(shot))}</title>
<style>
body { margin: 0; background: #ffffff; }
.term { display: inline-block; margin: 16px; padding: 14px 16px; background: ${TERMINAL_BG}; color: ${TERMINAL_FG}; border-radius: 8px; box-shadow: 0 4px 16px rgba(0,0,0,.35); }
pre { margin: 0; font: 13px/1.35 'DejaVu Sans Mono', 'Liberation Mono', monospace; width: ${TERMINAL.columns}ch; min-height: ${TERMINAL.rows * 1.35}em; }
</style></head>
<body><div class="term"><pre>${cellsHtml(parseAnsi(screen))}</pre></div></body></html>
`;
}

/**
 * `explain` in tmux, as a person types it (on a terminal, colour and the width come from the terminal), checked
 * against the same command through a pipe, where FORCE_COLOR and COLUMNS make it draw alike: the screen below
 * the prompt must be the piped text as a terminal of that width shows it, cell for cell (character and style),
 * so that the manifest's hash of the piped text stands for what the image shows.
 */
async function terminalScreen(shot: Shot, piped: string): Promise<string> {
  const prompt = `afterstop ${shot.args.join(' ')}`;
  const captured = normalised(shot, await runInTmux({ argv: [process.execPath, CLI_PATH, ...shot.args], prompt, cwd: ROOT, env: shotEnv(shot), ...TERMINAL }));
  const promptRows = Math.ceil([...`$ ${prompt}`].length / TERMINAL.columns);
  const below = captured.split('\n').slice(promptRows).join('\n');
  if (cellsKey(parseAnsi(below)) !== cellsKey(wrapCells(parseAnsi(piped), TERMINAL.columns))) {
    throw new Error(`the terminal showed other text than the piped command wrote:\n--- tmux\n${below}\n--- pipe\n${piped}`);
  }
  return captured;
}

async function screenshot(page: Page, html: string, file: string, element?: string): Promise<void> {
  await page.setContent(html, { waitUntil: 'load' });
  if (element !== undefined) {
    await page.locator(element).screenshot({ path: file, animations: 'disabled' });
    return;
  }
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: VIEWPORT.width, height: Math.min(height, MAX_HEIGHT) }, animations: 'disabled' });
}

async function main(): Promise<void> {
  const started = performance.now();
  const dir = path.join(ROOT, SCREENSHOTS_DIR);
  const texts = await Promise.all(SHOTS.map((shot) => sourceText(shot)));
  const browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] || '/usr/bin/chromium', args: ['--no-sandbox', '--font-render-hinting=none'] });
  const entries: ManifestEntry[] = [];
  try {
    const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light' });
    for (const [i, shot] of SHOTS.entries()) {
      const text = texts[i]!;
      const file = path.join(dir, shot.png);
      if (shot.kind === 'html') await screenshot(page, text, file);
      else await screenshot(page, terminalPage(await terminalScreen(shot, text), shot), file, '.term');
      entries.push(manifestEntry(shot, text));
      console.log(`wrote ${SCREENSHOTS_DIR}/${shot.png}  (${commandLine(shot)})`);
    }
  } finally {
    await browser.close();
  }
  fs.writeFileSync(path.join(ROOT, MANIFEST), manifestJson(entries));
  const readme = path.join(ROOT, README);
  fs.writeFileSync(readme, withSample(fs.readFileSync(readme, 'utf8'), sampleBlock(await sourceText(SAMPLE_REPORT))));
  console.log(`wrote the sample report in ${README}`);
  console.log(`wrote ${MANIFEST} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
