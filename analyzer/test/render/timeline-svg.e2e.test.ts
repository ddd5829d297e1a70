import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../analyze.js';
import { renderHtml } from '../../render/html.js';
import { MAX_LANES } from '../../render/timeline-svg.js';
import type { LeakReport } from '../../types.js';
import { writtenSpans, type WrittenSpan } from '../../../test/helpers/timeline-check.js';
import { traces } from '../../../test/helpers/trace-builder.js';
import { serviceScenario } from '../../../test/helpers/service-trace.js';

/**
 * The runs of the worst findings drawn in the HTML report, read back from the
 * page in Chromium: every element drawn for a span is a span of the run, at
 * the x its time gives on the chart's axis; the Stop line at the x of the
 * run's C; no script, no request; the page bounded however many findings.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const goldenFiles = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => golden + f);
const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let browser: Browser;
let dir: string;
let report: LeakReport;
let spans: Map<string, WrittenSpan>;
const pages: Page[] = [];

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-timeline-'));
  report = await analyze({ inputs: goldenFiles, db: ':memory:', timelines: 20 });
  spans = writtenSpans(goldenFiles);
});
afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
});
afterAll(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function load(html: string, name: string): Promise<{ page: Page; url: string; requests: string[]; problems: string[] }> {
  const file = path.join(dir, `${name}.html`);
  fs.writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  pages.push(page);
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  return { page, url, requests, problems };
}

interface DrawnChart {
  runId: string;
  traceId: string;
  originNs: string;
  from: number;
  to: number;
  plotX: number;
  plotWidth: number;
  stopX: number | null;
  elements: { spanId: string; kind: string; part: string | null; startMs: number; endMs: number | null; fromMs: number | null; x: number; right: number }[];
}

/** Every timeline chart of the page, as the browser holds it. */
const readCharts = (page: Page): Promise<DrawnChart[]> =>
  page.$$eval('svg.timeline', (svgs) =>
    svgs.map((svg) => {
      const num = (v: string | null): number => Number(v);
      const stop = svg.querySelector('line.stop');
      return {
        runId: svg.getAttribute('data-run-id') ?? '',
        traceId: svg.getAttribute('data-trace-id') ?? '',
        originNs: svg.getAttribute('data-origin-ns') ?? '',
        from: num(svg.getAttribute('data-from-ms')),
        to: num(svg.getAttribute('data-to-ms')),
        plotX: num(svg.getAttribute('data-plot-x')),
        plotWidth: num(svg.getAttribute('data-plot-width')),
        stopX: stop === null ? null : num(stop.getAttribute('x1')),
        elements: [...svg.querySelectorAll('[data-span-id]')].map((el) => {
          // The box the browser laid the element out in (SVGGraphicsElement.getBBox; the project's types have no DOM).
          const box = (el as unknown as { getBBox(): { x: number; width: number } }).getBBox();
          const tag = el.tagName.toLowerCase();
          const x = tag === 'rect' ? num(el.getAttribute('x')) : tag === 'circle' ? num(el.getAttribute('cx')) : tag === 'line' ? num(el.getAttribute('x1')) : box.x + box.width / 2;
          const right = tag === 'rect' ? num(el.getAttribute('x')) + num(el.getAttribute('width')) : tag === 'line' ? num(el.getAttribute('x2')) : x;
          return {
            spanId: el.getAttribute('data-span-id') ?? '',
            kind: el.getAttribute('data-kind') ?? '',
            part: el.getAttribute('data-part'),
            startMs: num(el.getAttribute('data-start-ms')),
            endMs: el.hasAttribute('data-end-ms') ? num(el.getAttribute('data-end-ms')) : null,
            fromMs: el.hasAttribute('data-from-ms') ? num(el.getAttribute('data-from-ms')) : null,
            x,
            right,
          };
        }),
      };
    }),
  );

const xOf = (c: DrawnChart, ms: number): number => c.plotX + ((ms - c.from) / (c.to - c.from)) * c.plotWidth;

describe('the HTML report’s timelines', () => {
  it('draw every worst finding’s run; each element a span of the run at the x of its own time; the Stop at C', async () => {
    const { page, url, requests, problems } = await load(renderHtml(report), 'golden');
    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    const charts = await readCharts(page);
    const timelines = report.timelines!;
    // The golden traces' nine findings point at five runs (the ghost email's next-run error at the ghost email's run).
    expect(timelines.length).toBe(5);
    expect(charts.length).toBe(timelines.length + timelines.filter((t) => t.next_run !== null).length);
    let checked = 0;
    for (const c of charts) {
      const origin = BigInt(c.originNs);
      for (const e of c.elements) {
        const span = spans.get(`${c.traceId}:${e.spanId}`);
        expect(span, `${e.kind} ${e.spanId} drawn in run ${c.runId} is a span of trace ${c.traceId}`).toBeDefined();
        expect(e.startMs).toBeCloseTo(Number(span!.startNs - origin) / 1e6, 6);
        if (e.endMs !== null) expect(e.endMs).toBeCloseTo(Number(span!.endNs - origin) / 1e6, 6);
        // Where it is drawn: a bar from its start (its part after Stop from the Stop) to its end; a tick at its time.
        if (e.part === 'after' && e.startMs < 0) expect(e.x).toBeCloseTo(xOf(c, 0), 1);
        else if (e.part === 'interval') expect(e.x).toBeCloseTo(xOf(c, e.fromMs!), 1);
        else if (e.part !== 'request') expect(e.x).toBeCloseTo(xOf(c, e.startMs), 1);
        if (e.endMs !== null && (e.part === 'after' || (e.part === 'before' && e.endMs <= 0))) expect(e.right).toBeCloseTo(xOf(c, e.endMs), 0);
        checked++;
      }
      const timeline = timelines.find((t) => t.run_id === c.runId && t.trace_id === c.traceId);
      if (timeline?.cancelled) {
        // The Stop line is at x(0) and 0 is the run's C: afterstop's cancel request marker, when it has one.
        expect(c.stopX).toBeCloseTo(xOf(c, 0), 1);
        const request = [...spans.values()].find((s) => s.traceId === c.traceId && s.name === 'afterstop.cancel.request' && timeline.items.some((i) => i.span_id === s.spanId));
        if (request !== undefined) expect(request.startNs).toBe(origin);
      }
      // Every item of the run is drawn.
      const run = timeline ?? timelines.map((t) => t.next_run).find((n) => n?.run_id === c.runId && n.trace_id === c.traceId);
      expect(new Set(c.elements.map((e) => e.spanId))).toEqual(new Set(run!.items.map((i) => i.span_id)));
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('the findings table links each finding to its run’s timeline; a ghost commit is a red tick after the Stop', async () => {
    const { page } = await load(renderHtml(report), 'links');
    const links = await page.$$eval('table.findings a[href^="#"]', (as) => as.map((a) => a.getAttribute('href')));
    expect(links.length).toBe(report.findings.length);
    for (const href of links) expect(await page.locator(`section${href}`).count()).toBe(1);
    const ghost = report.findings.findIndex((f) => f.kind === 'ghost_commit');
    const section = page.locator(`section${links[ghost]}`);
    const tick = section.locator('svg.timeline:not(.next-run) polygon.commit');
    expect(await tick.getAttribute('fill')).toBe('#cf222e');
    const x = Number((await tick.getAttribute('points'))!.split(',')[0]);
    const stop = Number(await section.locator('svg.timeline:not(.next-run) line.stop').getAttribute('x1'));
    expect(x).toBeGreaterThan(stop);
    await section.screenshot({ path: path.join(os.tmpdir(), 'afterstop-ghost-commit-timeline.png') });
    expect(fs.statSync(path.join(os.tmpdir(), 'afterstop-ghost-commit-timeline.png')).size).toBeGreaterThan(10_000);
    expect(await section.locator('.next-run-title').textContent()).toMatch(/failed after this Stop: 400 No tool output found/);
  });

  it('a foreign run’s inferred Stop is dashed and says so; trace text is shown as text, never run', async () => {
    const t = traces();
    const r = t.run({ framework: 'vercel-ai', agent: XSS, startMs: 0, endMs: 900, stamp: false, name: 'ai.streamText', attrs: { 'ai.operationId': 'ai.streamText' } });
    r.span({
      name: 'ai.toolCall',
      startMs: 50,
      endMs: 300,
      status: { code: 'error', message: 'This operation was aborted' },
      attrs: { 'ai.toolCall.name': XSS, 'ai.toolCall.id': 'c1', 'ai.operationId': 'ai.toolCall' },
      scope: 'ai',
    });
    r.span({ name: 'ai.toolCall', startMs: 60, endMs: 700, attrs: { 'ai.toolCall.name': 'charge', 'ai.toolCall.id': 'c2', 'ai.operationId': 'ai.toolCall' }, scope: 'ai' });
    const foreign = await analyze({ inputs: [t.write()], db: ':memory:', timelines: 5 });
    expect(foreign.timelines![0]!.cancel_inferred).toBe(true);
    const { page, problems } = await load(renderHtml(foreign), 'foreign');
    expect(problems).toEqual([]);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    const stop = page.locator('svg.timeline line.stop');
    expect(await stop.getAttribute('stroke-dasharray')).toBe('6 3');
    expect(await page.locator('svg.timeline text.line-label').first().textContent()).toBe('Stop (inferred)');
    expect(await page.locator('svg.timeline .lane-label', { hasText: '<script>' }).count()).toBe(1);
    // The tool that ended after the inferred Stop without error: an inferred ghost, drawn dashed.
    expect(await page.locator('svg.timeline rect.bar[stroke-dasharray]').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.timeline .note', { hasText: 'inferred' }).count()).toBeGreaterThan(0);
  });

  it('the far side’s witness (issue 49): the service’s lanes under the tool call at their mapped times, the commit’s interval, names as text', async () => {
    const sc = serviceScenario({ skewMs: 5000, answered: true, service: XSS });
    const file = sc.t.write();
    const witnessed = await analyze({ inputs: [file], db: ':memory:', timelines: 5 });
    const { page, problems } = await load(renderHtml(witnessed), 'witness');
    expect(problems).toEqual([]);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    const [chart] = await readCharts(page);
    const timeline = witnessed.timelines![0]!;
    const lanes = await page.$$eval('svg.timeline g.lane .lane-label', (ls) => ls.map((l) => l.childNodes[0]?.textContent ?? ''));
    const call = lanes.findIndex((l) => l.startsWith('send_email (irreversible)'));
    // Right under the call, the service's name cut to 24 characters so that the span's name shows.
    const service = `${XSS.slice(0, 23)}…`;
    // (The write, after Stop, in bold: its label cut to the lanes' names' room, the whole in its title.)
    expect(lanes[call + 1]).toBe(`↳ ${service}: POST /send`);
    expect(lanes[call + 2]?.startsWith(`↳ ${service}: INSERT`), lanes[call + 2]).toBe(true);
    const services = chart!.elements.filter((e) => e.kind === 'service_span');
    expect(new Set(services.map((e) => e.spanId))).toEqual(new Set([sc.entrySpanId, sc.writeSpanId]));
    for (const e of services) {
      // Drawn where its mapped time puts it; that time the span's own, less a δ inside the bound.
      const item = timeline.items.find((i) => i.span_id === e.spanId && i.kind === 'service_span')!;
      expect(e.startMs).toBe(item.start_ms);
      if (e.part === 'after' && e.startMs < 0) expect(e.x).toBeCloseTo(xOf(chart!, 0), 1);
      else expect(e.x).toBeCloseTo(xOf(chart!, e.startMs), 1);
      const written = writtenSpans([file]).get(`${timeline.trace_id}:${e.spanId}`)!;
      const delta = Number(written.startNs - BigInt(timeline.origin_ns)) / 1e6 - e.startMs;
      expect(delta).toBeGreaterThanOrEqual(4880 - 1e-6);
      expect(delta).toBeLessThanOrEqual(5050 + 1e-6);
    }
    const interval = chart!.elements.find((e) => e.part === 'interval')!;
    expect(interval).toMatchObject({ spanId: sc.commitSpanId, fromMs: 230 });
    expect(interval.x).toBeCloseTo(xOf(chart!, 230), 1);
    expect(interval.right).toBeCloseTo(xOf(chart!, 432), 1);
    // Who witnessed it, the service's name shown as text (the note cut to its room; the whole in the mark's title).
    expect(await page.locator('svg.timeline .note', { hasText: 'confirmed by' }).first().textContent()).toMatch(/^← ghost, confirmed by <script>window\.__xss=1<\/script><img src=x/);
    expect(await page.locator(`svg.timeline polygon.commit[data-span-id="${sc.commitSpanId}"] title`).textContent()).toContain(
      `confirmed by ${XSS}: INSERT outbox ended 347 ms after Stop ± 85 ms (between +230 ms and +432 ms)`,
    );
  });

  it('stays bounded: at most the asked-for runs drawn, the rest listed; a run’s lanes capped', async () => {
    const t = traces();
    for (let i = 0; i < 300; i++) {
      const r = t.run({ startMs: i * 1000, endMs: i * 1000 + 900, outcome: 'cancelled' });
      r.cancelRequest(i * 1000 + 100);
      r.tool({ name: 'send_email', callId: `m${i}`, startMs: i * 1000 + 50, endMs: i * 1000 + 400, effect: 'irreversible', result: 'late' });
      r.commit({ callId: `m${i}`, atMs: i * 1000 + 300 });
    }
    const big = t.run({ startMs: 400_000, endMs: 401_000, outcome: 'cancelled' });
    big.cancelRequest(400_010);
    for (let i = 0; i < 400; i++) big.model({ startMs: 400_000 + i, endMs: 400_020 + i, model: 'gpt-4o', input: 1, output: 1 });
    const many = await analyze({ inputs: [t.write()], db: ':memory:', timelines: 20 });
    const html = renderHtml(many);
    expect(many.timelines).toHaveLength(20);
    expect(html.length).toBeLessThan(1_000_000);
    const { page } = await load(html, 'bounded');
    expect(await page.locator('svg.timeline').count()).toBe(20);
    expect(
      await page
        .locator('.run-timeline + p, section > p.muted-line')
        .filter({ hasText: /finding\(s\) point at runs not drawn/ })
        .count(),
    ).toBe(1);
    const capped = await analyze({ inputs: [t.write()], db: ':memory:', timelines: 0 });
    expect(capped.timelines).toBeUndefined();
    const one = await analyze({ inputs: [t.write()], db: ':memory:', timelines: 400 });
    const bigTimeline = one.timelines!.find((x) => x.run_id === big.spanId)!;
    expect(bigTimeline.items.length).toBe(401);
    const { page: p2 } = await load(renderHtml({ ...one, timelines: [bigTimeline] }), 'capped');
    // The Stop a line across the lanes, named above them: the lanes and the lines drawn, MAX_LANES in all.
    expect(await p2.locator('svg.timeline g.lane').count()).toBe(MAX_LANES - 1);
    expect(await p2.locator('svg.timeline line.stop').count()).toBe(1);
    expect(await p2.locator('svg.timeline text.more').textContent()).toBe(`… ${401 - MAX_LANES} more not drawn`);
  });
});
