import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../analyze.js';
import { explain } from '../../explain.js';
import { renderExplainHtml } from '../../render/explain-html.js';
import { pageStart, renderHtml } from '../../render/html.js';
import type { RunTimeline } from '../../types.js';
import { writtenSpans } from '../../../test/helpers/timeline-check.js';
import { hostileTraces } from '../../../test/helpers/hostile-timeline.js';

/**
 * The timelines laid out without a collision, read back from Chromium: in every
 * figure of `explain --format html` (every run of every trace of the input)
 * and of the leak report's timelines section, no two text boxes overlap, no
 * label lies over a commit's or a marker's shape, no text is cut by its SVG or
 * its figure, and no shape is cut by the plot's edge. Over the golden traces,
 * every framework's recorded runs and traces of hostile names.
 */
const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const jsonl = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));
const goldenFiles = jsonl(path.join(fixtures, 'golden'));
// The recorded runs of every framework, and the AI SDK's with its own telemetry on.
const recordedFiles = [...jsonl(path.join(fixtures, 'recorded')), ...jsonl(path.join(fixtures, 'ai-sdk'))];

/** Boxes may touch: an overlap smaller than this (px, each way) is none. */
const TOLERANCE = 1;

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-layout-'));
});
afterAll(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Box {
  what: string;
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}
interface FigureBoxes {
  id: string;
  figure: Box;
  /** Every SVG's box and its plot (client px), with the texts and shapes drawn in it. */
  svgs: { box: Box; plotLeft: number; plotRight: number; texts: Box[]; shapes: Box[]; emptyLanes: string[] }[];
  /** The figure's HTML labels (heading, lines, figures). */
  html: Box[];
}

/**
 * Read in the page (as a string: the project's types have no DOM): for each timeline figure, the client rectangle
 * of every text element of its SVGs, of its commit and marker shapes, and of its HTML labels.
 */
const COLLECT = `(() => {
  const box = (el, what) => { const r = el.getBoundingClientRect(); return { what, text: (el.textContent || '').slice(0, 120), left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  // A text element's own text: its title (a tooltip) is not drawn.
  const own = (el) => [...el.childNodes].filter((n) => n.nodeType === 3 || (n.nodeType === 1 && n.tagName.toLowerCase() !== 'title')).map((n) => n.textContent).join('');
  return [...document.querySelectorAll('section.run-timeline')].map((section) => ({
    id: section.id,
    figure: box(section, 'figure'),
    svgs: [...section.querySelectorAll('svg.timeline')].map((svg) => {
      const r = svg.getBoundingClientRect();
      const scale = r.width / Number(svg.viewBox.baseVal.width);
      const plotX = Number(svg.getAttribute('data-plot-x'));
      const plotWidth = Number(svg.getAttribute('data-plot-width'));
      return {
        box: box(svg, 'svg'),
        plotLeft: r.left + plotX * scale,
        plotRight: r.left + (plotX + plotWidth) * scale,
        texts: [...svg.querySelectorAll('text')].filter((t) => own(t).trim() !== '').map((t) => ({ ...box(t, 'text.' + [...t.classList].join('.')), text: own(t).slice(0, 120) })),
        shapes: [...svg.querySelectorAll('polygon.mark, circle.mark')].map((s) => box(s, (s.getAttribute('class') || '').replace(/ /g, '.'))),
        // A lane that draws nothing but its name.
        emptyLanes: [...svg.querySelectorAll('g.lane')].filter((g) => [...g.children].every((c) => c.tagName.toLowerCase() === 'text')).map((g) => own(g.querySelector('text'))),
      };
    }),
    html: [...section.querySelectorAll('h3, p, dt, dd')].map((e) => box(e, e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))),
  }));
})()`;

const overlap = (a: Box, b: Box): boolean => Math.min(a.right, b.right) - Math.max(a.left, b.left) > TOLERANCE && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > TOLERANCE;
const inside = (a: Box, outer: { left: number; right: number; top: number; bottom: number }): boolean =>
  a.left >= outer.left - TOLERANCE && a.right <= outer.right + TOLERANCE && a.top >= outer.top - TOLERANCE && a.bottom <= outer.bottom + TOLERANCE;
const name = (b: Box): string => `${b.what} ${JSON.stringify(b.text)}`;

/** What collides in one page's figures, in words (empty: nothing). */
function collisions(figures: FigureBoxes[]): string[] {
  const out: string[] = [];
  for (const f of figures) {
    for (const [i, s] of f.svgs.entries()) {
      const where = `${f.id}, chart ${i + 1}`;
      for (const [j, a] of s.texts.entries()) {
        if (!inside(a, s.box)) out.push(`${where}: ${name(a)} cut by the chart's box`);
        // The lanes' names left of the plot, the notes in it (or past its end): neither over the other's column.
        if (a.what.startsWith('text.lane-label') && a.right > s.plotLeft + TOLERANCE) out.push(`${where}: ${name(a)} runs into the plot`);
        if (a.what.startsWith('text.note') && a.left < s.plotLeft - TOLERANCE) out.push(`${where}: ${name(a)} runs into the lanes' names`);
        for (const b of s.texts.slice(j + 1)) if (overlap(a, b)) out.push(`${where}: ${name(a)} over ${name(b)}`);
        for (const b of s.shapes) if (overlap(a, b)) out.push(`${where}: ${name(a)} over a ${b.what}`);
      }
      for (const l of s.emptyLanes) out.push(`${where}: an empty lane ${JSON.stringify(l)}`);
      for (const b of s.shapes) if (b.left < s.plotLeft - TOLERANCE || b.right > s.plotRight + TOLERANCE) out.push(`${where}: a ${b.what} cut by the plot's edge`);
    }
    for (const h of f.html) if (!inside(h, f.figure)) out.push(`${f.id}: ${name(h)} cut by its figure`);
  }
  return out;
}

/** A call drawn in more than one lane: tool calls of a run (its MCP server's side apart) that share a call id. */
function callsDrawnTwice(timelines: readonly RunTimeline[]): string[] {
  const out: string[] = [];
  for (const t of timelines.flatMap((x) => (x.next_run === null ? [x] : [x, x.next_run]))) {
    const seen = new Map<string, number>();
    for (const i of t.items) if (i.kind === 'tool_call' && i.call_id !== null && i.mcp?.side !== 'server') seen.set(i.call_id, (seen.get(i.call_id) ?? 0) + 1);
    for (const [id, n] of seen) if (n > 1) out.push(`run ${t.run_id}: tool call ${id} drawn in ${n} lanes`);
  }
  return out;
}

/** The collisions of a page's timeline figures, laid out at a desktop's width. */
async function collisionsOf({ html, input, timelines }: Page): Promise<{ figures: number; found: string[] }> {
  const file = path.join(dir, `${input.replace(/[^a-z0-9]+/gi, '-')}.html`);
  fs.writeFileSync(file, html);
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await tab.goto(pathToFileURL(file).href);
    // Laid out with the fonts it falls back to (emoji, Arabic) loaded.
    await tab.evaluate('document.fonts.ready.then(() => true)');
    const figures = (await tab.evaluate(COLLECT)) as FigureBoxes[];
    return { figures: figures.length, found: [...callsDrawnTwice(timelines), ...collisions(figures)] };
  } finally {
    await tab.close();
  }
}

/** `explain --format html` of every run of every trace of a file (a trace's runs drawn together, as explain draws them). */
interface Page {
  input: string;
  html: string;
  timelines: RunTimeline[];
}

async function explainPages(file: string): Promise<Page[]> {
  const traceIds = [...new Set([...writtenSpans([file]).values()].map((s) => s.traceId))].sort();
  const out: Page[] = [];
  for (const id of traceIds) {
    const e = await explain({ target: { id }, inputs: [file], db: ':memory:' });
    if (e.timelines.length > 0) out.push({ input: `explain ${path.basename(file)} ${id}`, html: renderExplainHtml(e, pageStart), timelines: e.timelines });
  }
  return out;
}

/** The leak report's page over the files, its timelines section drawing the worst runs. */
async function reportPage(files: string[], input: string): Promise<Page> {
  const report = await analyze({ inputs: files, db: ':memory:', timelines: 50 });
  return { input, html: renderHtml(report), timelines: report.timelines ?? [] };
}

/** Every page of a group checked; the collisions of each input, and how many there are in all (printed for the record). */
async function check(group: string, pages: Page[]): Promise<void> {
  const failures: string[] = [];
  let figures = 0;
  let failing = 0;
  for (const page of pages) {
    const r = await collisionsOf(page);
    figures += r.figures;
    if (r.found.length > 0) failing++;
    failures.push(...r.found.map((f) => `${page.input}: ${f}`));
  }
  process.stderr.write(`timeline layout, ${group}: ${pages.length} pages, ${figures} figures, ${failures.length} collisions in ${failing} page(s)\n`);
  // Every collision, for a reader's look (AFTERSTOP_LAYOUT_LOG=file).
  const log = process.env['AFTERSTOP_LAYOUT_LOG'];
  if (log) fs.appendFileSync(log, failures.map((f) => `${group}: ${f}\n`).join(''));
  expect(figures, `${group}: figures drawn`).toBeGreaterThan(0);
  expect(failures.slice(0, 40), `${group}: ${failures.length} collision(s)`).toEqual([]);
}

describe('timelines laid out without a collision (Chromium)', () => {
  it('over the golden traces: every run explained, and the report’s timelines', async () => {
    const pages = [];
    for (const f of goldenFiles) pages.push(...(await explainPages(f)));
    pages.push(await reportPage(goldenFiles, 'leak-report golden'));
    await check('golden', pages);
  }, 300_000);

  it('over every framework’s recorded runs', async () => {
    const pages = [];
    for (const f of recordedFiles) pages.push(...(await explainPages(f)));
    pages.push(await reportPage(recordedFiles, 'leak-report recorded'));
    await check('recorded', pages);
  }, 600_000);

  it('over hostile names: long, RTL, emoji, combining marks, zero-width, markup, names alike but at the end, many parallel calls', async () => {
    const files = hostileTraces();
    const pages = [];
    for (const f of files) pages.push(...(await explainPages(f)));
    pages.push(await reportPage(files, 'leak-report hostile'));
    await check('hostile', pages);
  }, 300_000);
});
