import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { int, ms, usd } from '../../render/format.js';
import { budgetStatus } from '../../cli/budgets.js';
import { escapeHtml, renderHtml } from '../../render/html.js';
import { REMEDIES } from '../../render/remedies.js';
import { verdict } from '../../render/verdict.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * The HTML report, rendered from real reports (the golden traces, and traces
 * full of markup) and opened from a file:// URL in Chromium: it loads nothing,
 * runs nothing, and its charts and figures say what the JSON says.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const XSS_SCRIPT = '<script>window.__xss=1</script>';
const XSS_IMG = '"><img src=x onerror="window.__xss=2">';
const CHARTS = ['cancel-latency', 'cancel-settle', 'ghost-tax-over-time', 'tokens-over-time', 'ghost-tax-by-service', 'ghost-commits-by-tool', 'cancel-depth'];
const DEPTHS = ['0', '1', '2', '3', '4'] as const;

let browser: Browser;
let dir: string;
let report: LeakReport;
let hostile: LeakReport;
let quiet: LeakReport;
const pages: Page[] = [];

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-html-'));
  report = await analyze({ inputs: [golden], db: ':memory:' });

  // Markup everywhere a trace can put a string: service, agent, framework, conversation,
  // tool name, model name, span attributes, and the name of a file with a bad line.
  const t = traces();
  const r = t.run({ service: XSS_SCRIPT, agent: XSS_IMG, framework: XSS_SCRIPT, conversation: XSS_IMG, startMs: 0, endMs: 1000, outcome: 'cancelled', attrs: { 'gen_ai.agent.description': XSS_IMG } });
  r.cancelRequest(100);
  r.ack(150);
  r.tool({ name: XSS_SCRIPT, callId: 'c1', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible', attrs: { 'error.type': XSS_IMG } });
  r.commit({ callId: 'c1', atMs: 300 });
  r.tool({ name: XSS_IMG, callId: 'c2', startMs: 60, endMs: 500, result: 'late', effect: XSS_SCRIPT });
  r.commit({ callId: 'c2', atMs: 350 });
  r.model({ startMs: 20, endMs: 600, model: XSS_IMG, input: 100, output: 50, afterCancel: 20 });
  const file = t.write();
  const bad = path.join(path.dirname(file), `${XSS_IMG}.jsonl`);
  fs.writeFileSync(bad, `${XSS_SCRIPT}\n`);
  hostile = await analyze({ inputs: [file, bad], db: ':memory:' });

  // Nothing after Stop: one completed run.
  const q = traces();
  q.run({ startMs: 0, endMs: 100, outcome: 'completed' });
  quiet = await analyze({ inputs: [q.write()], db: ':memory:' });
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
});

afterAll(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Loaded {
  page: Page;
  url: string;
  requests: string[];
  problems: string[];
}

/** Write the page to a file and open it; collect its requests, console errors and page errors. */
async function load(html: string, name: string): Promise<Loaded> {
  const file = path.join(dir, `${name}.html`);
  fs.writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const page = await browser.newPage();
  pages.push(page);
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return { page, url, requests, problems };
}

/** The data-value of every bar of a chart, in document order. */
const values = (page: Page, chart: string): Promise<number[]> => page.$$eval(`svg[data-chart="${chart}"] rect[data-value]`, (rects) => rects.map((r) => Number(r.getAttribute('data-value'))));

const byNumber = (a: number, b: number): number => a - b;

describe('escapeHtml', () => {
  it('escapes the five characters, & first', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
    expect(escapeHtml(XSS_IMG)).toBe('&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;');
    expect(escapeHtml('plain text, 1 ≤ 2')).toBe('plain text, 1 ≤ 2');
  });
});

describe('renderHtml', () => {
  it('is one page that loads nothing but itself and runs nothing', async () => {
    const html = renderHtml(report);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
    expect(html).not.toMatch(/https?:|\/\/|<script|<link|<img|\son[a-z]+=/i);

    const { page, url, requests, problems } = await load(html, 'golden');
    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
  });

  it('shows the headline figures of the JSON, formatted', async () => {
    const { page } = await load(renderHtml(report), 'figures');
    const t = report.totals;
    const expected: Record<string, string> = {
      ghost_tax_usd: usd(t.ghost_tax_usd),
      tokens_after_stop: int(t.tokens_after_stop.input + t.tokens_after_stop.output),
      ghost_commits: int(t.ghost_commits),
      ghost_commits_possible: int(t.ghost_commits_possible),
      orphan_tool_calls: int(t.orphan_tool_calls),
      post_cancel_errors: int(t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other),
      replay_duplicates: int(t.replay_duplicates),
      commits_prevented: int(t.commits_prevented),
      cancel_ack_p50_ms: ms(t.cancel_ack_ms.p50),
      cancel_ack_p95_ms: ms(t.cancel_ack_ms.p95),
      unacknowledged_cancels: int(t.unacknowledged_cancels),
      runs: int(t.runs),
      cancelled_runs: int(t.cancelled_runs),
      unended_runs: int(t.unended_runs),
      orphan_processes: int(t.orphan_processes),
      cleanup_errors: int(t.cleanup_errors),
      // Steering's figures are shown when not zero (the golden traces have one of each).
      steering_dropped: int(t.steering.dropped),
      steering_violations: int(t.steering.violations),
    };
    const shown = Object.fromEntries(await page.$$eval('[data-figure]', (els) => els.map((e) => [e.getAttribute('data-figure') ?? '', e.textContent ?? ''])));
    expect(shown).toEqual(expected);
    // The golden traces' figures, spelled out.
    expect(shown).toMatchObject({ ghost_tax_usd: '$0.0063', tokens_after_stop: '1,530', cancel_ack_p50_ms: '50 ms', cancel_ack_p95_ms: '125 ms', runs: '9' });

    const body = await page.locator('body').innerText();
    expect(body).toContain(report.prices.source);
    expect(body).toContain(`${int(report.input.files)} files`);
    expect(body).toContain(`${int(report.input.spans_read)} spans read`);
  });

  it('leads with the verdict, then the figures that need attention, large, each over its budget saying so, then the others, small', async () => {
    const budgets = budgetStatus(report, { maxGhostCommits: 0, maxOrphans: 5 });
    const { page } = await load(renderHtml(report, { budgets }), 'verdict');
    const banner = page.locator('header [data-verdict]');
    expect(await banner.getAttribute('data-verdict')).toBe('attention');
    expect(await banner.textContent()).toBe(verdict(report, budgets).sentence);
    // The verdict is the first thing under the title; the attention section comes before the other figures and the charts.
    const tops = await page.$$eval('[data-verdict], section.attention, section.other-figures, .charts', (els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(tops).toEqual([...tops].sort((a, b) => a - b));
    const attention = await page.$$eval('section.attention [data-figure]', (els) => els.map((e) => e.getAttribute('data-figure')));
    expect(attention).toEqual(['ghost_commits', 'replay_duplicates', 'post_cancel_errors', 'orphan_tool_calls', 'tokens_after_stop', 'ghost_tax_usd', 'unacknowledged_cancels', 'steering_dropped', 'steering_violations']);
    const rest = await page.$$eval('section.other-figures [data-figure]', (els) => els.map((e) => e.getAttribute('data-figure')));
    expect(rest).toEqual(['runs', 'cancelled_runs', 'cancel_ack_p50_ms', 'cancel_ack_p95_ms', 'commits_prevented', 'ghost_commits_possible', 'unended_runs', 'orphan_processes', 'cleanup_errors']);
    expect(await page.locator('section.other-figures .card.zero').count()).toBe(4);
    expect(await page.locator('section.attention .card:has([data-figure="ghost_commits"]) .budget.broken').textContent()).toBe('over budget --max-ghost-commits 0');
    expect(await page.locator('section.attention .card:has([data-figure="orphan_tool_calls"]) .budget:not(.broken)').textContent()).toBe('within budget --max-orphans 5');
    // Large beside small: an attention figure is drawn bigger than any other.
    const size = (selector: string): Promise<number> =>
      page
        .locator(selector)
        .first()
        .evaluate((e) => Number.parseFloat((globalThis as unknown as { getComputedStyle: (e: unknown) => { fontSize: string } }).getComputedStyle(e).fontSize));
    expect(await size('section.attention [data-figure]')).toBeGreaterThan(await size('.other-figures [data-figure]'));
    // The ghost tax of a quiet report does not lead: it is among the small figures at zero.
    const { page: q } = await load(renderHtml(quiet), 'verdict-quiet');
    expect(await q.locator('section.attention').count()).toBe(0);
    expect(await q.locator('.card.small.zero [data-figure="ghost_tax_usd"]').count()).toBe(1);
    expect(await q.locator('[data-verdict]').getAttribute('data-verdict')).toBe('nothing_to_judge');
  });

  it('shows "–" for a latency the window does not have', async () => {
    const { page } = await load(renderHtml(quiet), 'quiet-figures');
    expect(quiet.totals.cancel_ack_ms.p50).toBeNull();
    expect(await page.locator('[data-figure="cancel_ack_p50_ms"]').textContent()).toBe('–');
    expect(await page.locator('[data-figure="cancel_ack_p95_ms"]').textContent()).toBe('–');
  });

  it('draws every chart, each bar the value of the JSON', async () => {
    const { page } = await load(renderHtml(report), 'charts');
    for (const chart of CHARTS) {
      const svg = page.locator(`svg[data-chart="${chart}"]`);
      expect(await svg.count(), chart).toBe(1);
      expect(await svg.getAttribute('role')).toBe('img');
      expect(await svg.getAttribute('aria-label')).toBeTruthy();
      const titles = await svg.locator('rect[data-value]').evaluateAll((rects) => rects.map((r) => r.querySelector('title')?.textContent ?? ''));
      expect(titles.length, chart).toBeGreaterThan(0);
      for (const title of titles) expect(title, chart).toMatch(/: \S/);
    }
    const d = report.distributions;
    expect(await values(page, 'cancel-latency')).toEqual(d.cancel_ack_ms.map((b) => b.runs));
    expect(await values(page, 'cancel-settle')).toEqual(d.cancel_settle_ms.map((b) => b.runs));
    const points = report.timeline.points;
    expect((await values(page, 'ghost-tax-over-time')).sort(byNumber)).toEqual(points.map((p) => p.ghost_tax_usd).sort(byNumber));
    expect((await values(page, 'tokens-over-time')).sort(byNumber)).toEqual(points.map((p) => p.tokens_after_stop.input + p.tokens_after_stop.output).sort(byNumber));
    expect(await values(page, 'ghost-tax-by-service')).toEqual(report.groups.map((g) => g.ghost_tax_usd));
    expect(await values(page, 'ghost-commits-by-tool')).toEqual(report.totals.ghost_commits_by_tool.map((t) => t.ghost_commits));
    expect(await values(page, 'cancel-depth')).toEqual(report.totals.cancel_depth_by_framework.flatMap((f) => DEPTHS.map((k) => f.cancel_depth[k])));

    const labels = await page.locator('svg[data-chart="cancel-latency"] text.label').allTextContents();
    expect(labels[0]).toMatch(/^≤ ?10 ms$/);
    expect(labels.at(-1)).toMatch(/^> ?10 s$/);
    const latency = await page.locator('svg[data-chart="cancel-latency"] rect title').allTextContents();
    expect(latency[2]).toBe(`≤ 50 ms: ${d.cancel_ack_ms[2]?.runs} cancelled runs`);
    expect(await page.locator('figure:has([data-chart="cancel-depth"]) .legend li').count()).toBe(5);
    expect(await page.locator('figure:has([data-chart="ghost-commits-by-tool"]) .legend li').allTextContents()).toEqual(['irreversible']);
  });

  it('says "nothing in this window" for a chart without data, and keeps its data-chart name', async () => {
    const { page, problems } = await load(renderHtml(quiet), 'quiet');
    expect(problems).toEqual([]);
    for (const chart of CHARTS) {
      const container = page.locator(`[data-chart="${chart}"]`);
      expect(await container.count(), chart).toBe(1);
      expect(await container.evaluate((e) => e.tagName.toLowerCase()), chart).not.toBe('svg');
      expect(await container.textContent(), chart).toBe('nothing in this window');
    }
    expect(await page.locator('rect').count()).toBe(0);
  });

  it('tables the groups and the findings', async () => {
    const { page } = await load(renderHtml(report), 'tables');
    expect(await page.locator('table.groups tbody tr').count()).toBe(report.groups.length);
    const first = report.groups[0];
    expect(first).toBeDefined();
    const cells = await page.locator('table.groups tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual([first?.service, first?.agent ?? '–', first?.framework ?? '–', int(first?.runs ?? 0)]);
    expect(await page.locator('table.findings tbody tr').count()).toBe(report.findings.length);
    const finding = await page.locator('table.findings tbody tr').first().locator('td').allTextContents();
    const f = report.findings[0];
    // Numbered as `afterstop explain N` takes them; no timeline drawn unless the report has them.
    expect(finding).toEqual(['1', String(f?.severity), f?.time, f?.tool ?? '–', f?.detail, f?.trace_id, f?.run_id, '–']);
    // Under its kind, with the kind's count and remedy.
    const kind = page.locator(`.kind[data-kind="${f?.kind}"]`);
    expect(await kind.locator('h3').textContent()).toBe(`${f?.kind} × ${report.findings.filter((x) => x.kind === f?.kind).length}`);
    expect(await kind.locator('.remedy').textContent()).toBe(`Remedy: ${REMEDIES[f!.kind].replaceAll('`', '')}`);
    expect(await kind.locator('.remedy code').count()).toBe(REMEDIES[f!.kind].match(/`[^`]+`/g)?.length ?? 0);
    expect(await page.locator('.kind').count()).toBe(new Set(report.findings.map((x) => x.kind)).size);
    expect(await page.locator('a').count()).toBe(0);
  });

  it('links each trace id through the trace URL template, URI-encoded', async () => {
    const template = 'http://tempo:3200/trace/{trace_id}?run={run_id}';
    const odd = structuredClone(report);
    const f0 = odd.findings[0];
    if (f0) Object.assign(f0, { trace_id: 'a/b?c#d&e"f', run_id: `${XSS_IMG} x` });
    const { page, requests, url } = await load(renderHtml(odd, { traceUrl: template }), 'links');
    const links = await page.$$eval('table.findings a[href]', (as) => as.map((a) => ({ href: a.getAttribute('href'), rel: a.getAttribute('rel') })));
    // Grouped by kind (the kind of the worst first), in the report's order within a kind.
    const kinds = [...new Set(odd.findings.map((f) => f.kind))];
    expect(links).toEqual(
      kinds
        .flatMap((kind) => odd.findings.filter((f) => f.kind === kind))
        .map((f) => ({
          href: `http://tempo:3200/trace/${encodeURIComponent(f.trace_id)}?run=${encodeURIComponent(f.run_id)}`,
          rel: 'noopener noreferrer',
        })),
    );
    expect(links[0]?.href).toBe('http://tempo:3200/trace/a%2Fb%3Fc%23d%26e%22f?run=%22%3E%3Cimg%20src%3Dx%20onerror%3D%22window.__xss%3D2%22%3E%20x');
    expect(await page.locator('img').count()).toBe(0);
    expect(requests).toEqual([url]);
  });

  it('refuses a trace URL template that is not http: or https:', () => {
    for (const traceUrl of ['javascript:alert(document.domain)//{trace_id}', ' JavaScript:alert(1)', 'data:text/html,{trace_id}', 'file:///etc/{trace_id}', '/trace/{trace_id}', '{trace_id}']) {
      expect(() => renderHtml(report, { traceUrl }), traceUrl).toThrow(/trace URL template must be an (absolute )?http: or https: URL/);
    }
    expect(() => renderHtml(report, { traceUrl: 'https://grafana.example/explore?trace={trace_id}' })).not.toThrow();
  });

  it('shows markup from the traces as text, and runs none of it', async () => {
    const html = renderHtml(hostile, { traceUrl: 'https://tempo.example/trace/{trace_id}', generatedAt: new Date('2026-01-01T00:00:00Z') });
    expect(html).not.toMatch(/<script|<img/i);
    expect(hostile.input.skipped.some((s) => s.file.includes(XSS_IMG))).toBe(true);
    expect(hostile.totals.ghost_commits_by_tool.map((t) => t.tool).sort()).toEqual([XSS_IMG, XSS_SCRIPT].sort());

    const { page, problems, requests, url } = await load(html, 'hostile');
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(0);

    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain(XSS_SCRIPT);
    expect(text).toContain(XSS_IMG);
    const visible = page.getByText(XSS_SCRIPT, { exact: true }).filter({ visible: true });
    expect(await visible.count()).toBeGreaterThan(0);
    expect(await visible.first().isVisible()).toBe(true);
    // In tables (service, tool, model, skipped file) and in the charts' SVG titles and labels.
    expect(await page.locator('table.groups td').allTextContents()).toEqual(expect.arrayContaining([XSS_SCRIPT, XSS_IMG]));
    expect(await page.locator('table.models td').allTextContents()).toContain(XSS_IMG);
    expect(await page.locator('ul.skipped').textContent()).toContain(`${XSS_IMG}.jsonl:1`);
    const titles = await page.locator('svg[data-chart="ghost-commits-by-tool"] title').allTextContents();
    expect(titles.some((t) => t.includes(XSS_SCRIPT))).toBe(true);
    expect(titles.some((t) => t.includes(XSS_IMG))).toBe(true);
    expect(await page.locator('[data-chart="tokens-over-time"] ~ .legend li').allTextContents()).toContain(XSS_SCRIPT);
  });
});
