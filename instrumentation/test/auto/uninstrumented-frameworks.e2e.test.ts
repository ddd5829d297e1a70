import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { explain, readTraces } from '../../../analyzer/index.js';
import { renderArrow } from '../../../analyzer/render/arrow.js';
import { renderExplainMarkdown } from '../../../analyzer/render/explain-markdown.js';
import { renderExplainTerminal } from '../../../analyzer/render/explain-terminal.js';
import { renderHtml } from '../../../analyzer/render/html.js';
import { renderMarkdown } from '../../../analyzer/render/markdown.js';
import { renderTerminal } from '../../../analyzer/render/terminal.js';
import { sdkApps, spansNamed, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * Frameworks afterstop does not instrument, run as their users run them under `node --import
 * afterstop/register` against the simulator, stopped while their tool's POST is in flight (the e-mail lands
 * after Stop): stderr names the framework once, the report and `explain` say their figures are lower bounds
 * and name it, and a framework that writes its own GenAI spans (Google ADK, Strands) is one run, not two.
 */
const { app, runApp } = sdkApps();

/** The lines afterstop wrote on stderr that name a package it does not instrument. */
const namingLines = (r: AppRun): string[] => r.stderr.split('\n').filter((l) => l.startsWith('afterstop: ') && l.includes('afterstop does not instrument'));

/** Every format of the report and of explain says "lower bound" and names the package. */
async function saysLowerBound(r: AppRun, pkg: string): Promise<void> {
  expect(r.report.totals.uninstrumented).toEqual({ runs: r.report.totals.runs, packages: [pkg] });
  for (const text of [renderTerminal(r.report, { color: false }), renderMarkdown(r.report), renderHtml(r.report)]) {
    expect(text).toMatch(/Lower bounds: 1 of 1 run\(s\) ran beside/);
    expect(text).toContain(pkg);
  }
  const [total] = tableFromIPC(renderArrow(r.report).groups)
    .toArray()
    .map((row) => row.toJSON() as Record<string, unknown>)
    .filter((row) => row['is_total'] === true);
  expect(total).toMatchObject({ uninstrumented_runs: 1n, uninstrumented_packages: pkg });
  const explained = await explain({ target: { id: (await traceIds(r))[0]! }, inputs: [r.traces], db: ':memory:' });
  expect(explained.timelines.map((t) => t.uninstrumented)).toEqual([[pkg]]);
  for (const text of [renderExplainTerminal(explained, { color: false }), renderExplainMarkdown(explained)]) {
    expect(text).toContain('lower bound');
    expect(text).toContain(pkg);
  }
}

/** The traces' ids (each app writes one turn). */
const traceIds = async (r: AppRun): Promise<string[]> => [...new Set((await readTraces(r.traces)).spans.map((s) => s.traceId))];

describe('frameworks afterstop does not instrument, under afterstop/register', () => {
  it('Google ADK: stopped mid-tool, the e-mail lands after Stop; stderr names ADK once, its model calls through the openai client are not a second run, the report and explain say lower bound', async () => {
    const r = await runApp(app('google-adk-app.mjs'), 'tool-ignores');
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(namingLines(r)).toHaveLength(1);
    expect(namingLines(r)[0]).toMatch(/^afterstop: @google\/adk \(Google ADK, an agent framework\) is loaded/);
    // ADK loads the MCP SDK itself: named under ADK, not on a line of its own.
    expect(r.stderr).not.toContain('@modelcontextprotocol/sdk (');
    // One turn, one run: ADK's own (its spans, through afterstop's tracer provider), no openai-sdk run inside it.
    expect(r.report.totals.runs).toBe(1);
    expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['google-adk', 'support']]);
    expect((await spansNamed(r, 'chat')).filter((a) => a['afterstop.framework'] === 'openai-sdk')).toEqual([]);
    await saysLowerBound(r, '@google/adk');
  });

  it('Strands: stopped mid-tool (cancelSignal), the e-mail lands after Stop; stderr names Strands once, its model calls (in a trace of their own) are not a second run, the report and explain say lower bound', async () => {
    const r = await runApp(app('strands-app.mjs'), 'tool-ignores');
    expect(r.out['stopReason']).toBe('cancelled');
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(namingLines(r)).toHaveLength(1);
    expect(namingLines(r)[0]).toMatch(/^afterstop: @strands-agents\/sdk \(Strands Agents, an agent framework\) is loaded/);
    expect(r.report.totals.runs).toBe(1);
    expect(r.report.groups.map((g) => g.framework)).toEqual(['strands']);
    expect(await traceIds(r)).toHaveLength(1);
    await saysLowerBound(r, '@strands-agents/sdk');
  });
});
