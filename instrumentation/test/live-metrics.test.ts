import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { ACK_BUCKETS_S } from '../live-metrics.js';
import { CUT_MARK, MAX_LABEL_CHARS, MAX_LABEL_VALUES, OVERFLOW_LABEL } from '../label-cap.js';
import type { CommitSink } from '../run-context.js';
import { captureTraces, named, sleep, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * The live metrics (SEMCONV.md, "Live metrics"): recorded by the instrumentation
 * the instant a fact is known, through the MeterProvider registered globally;
 * nothing for a run never stopped; only low-cardinality attributes.
 */
let capture: TraceCapture;
let exporter: InMemoryMetricExporter;
let reader: PeriodicExportingMetricReader;
let provider: MeterProvider;
beforeAll(() => {
  capture = captureTraces();
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  metrics.disable();
  await capture.close();
});

interface Point {
  name: string;
  attributes: Record<string, unknown>;
  value: unknown;
}
/** Every data point collected now, by metric name. */
async function collect(): Promise<Point[]> {
  exporter.reset();
  await reader.forceFlush();
  const all: ResourceMetrics[] = exporter.getMetrics();
  return all.flatMap((rm) =>
    rm.scopeMetrics
      .filter((s) => s.scope.name === 'afterstop')
      .flatMap((s) => s.metrics.flatMap((m) => m.dataPoints.map((p) => ({ name: m.descriptor.name, attributes: p.attributes as Record<string, unknown>, value: p.value })))),
  );
}
const sum = (points: Point[], name: string, where: Record<string, unknown> = {}): number =>
  points.filter((p) => p.name === name && Object.entries(where).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + Number(p.value), 0);

describe('live metrics', () => {
  it('a run never stopped records nothing, however many calls it makes', async () => {
    const before = await collect();
    const run = startRun({ agentName: 'quiet', framework: 'manual' });
    await run.tool({ name: 'lookup', callId: 'q1', effect: 'read' }, async (ctx) => {
      await ctx.commit();
      return 1;
    });
    const call = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    call.chunk(5);
    call.end();
    run.end();
    expect(await collect()).toEqual(before);
  });

  it('a Stop during a committing tool: the request, the ack’s latency, the ghost commit, the orphaned call, the tokens and calls after Stop', async () => {
    const run = startRun({ agentName: 'support', framework: 'manual', conversationId: 'conv-live' });
    const streaming = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    streaming.chunk(3);
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tool = run.tool({ name: 'send_email', callId: 'm1', effect: 'irreversible' }, async (ctx) => {
      await gate;
      await ctx.commit(); // after Stop: a ghost
      return 'sent';
    });
    await run.cancel({ source: 'user' });
    streaming.chunk(4);
    streaming.chunk(2);
    streaming.end();
    const after = run.startModelCall({ provider: 'openai', model: 'gpt-4o-mini' });
    after.chunk(7);
    after.end();
    await sleep(20);
    run.acknowledge();
    release();
    await tool;
    run.end();

    const points = await collect();
    const labels = { 'gen_ai.agent.name': 'support', 'afterstop.framework': 'manual' };
    expect(sum(points, 'afterstop.cancel.requests', { ...labels, 'afterstop.cancel.source': 'user' })).toBe(1);
    expect(sum(points, 'afterstop.tool.commits_after_stop', { ...labels, 'gen_ai.tool.name': 'send_email', 'afterstop.tool.effect': 'irreversible' })).toBe(1);
    expect(sum(points, 'afterstop.tool.possible_ghost_commits')).toBe(0);
    expect(sum(points, 'afterstop.tool.orphaned_calls', { ...labels, 'gen_ai.tool.name': 'send_email' })).toBe(1);
    expect(sum(points, 'afterstop.model.output_tokens_after_stop', { 'gen_ai.request.model': 'gpt-4o' })).toBe(6);
    expect(sum(points, 'afterstop.model.output_tokens_after_stop', { 'gen_ai.request.model': 'gpt-4o-mini' })).toBe(7);
    expect(sum(points, 'afterstop.model.calls_after_stop', { ...labels, 'gen_ai.request.model': 'gpt-4o-mini' })).toBe(1);
    // No id in any attribute: only agent, framework, tool, effect, model and cancel source.
    const keys = new Set(points.flatMap((p) => Object.keys(p.attributes)));
    expect([...keys].sort()).toEqual(['afterstop.cancel.source', 'afterstop.framework', 'afterstop.tool.effect', 'gen_ai.agent.name', 'gen_ai.request.model', 'gen_ai.tool.name']);

    // The ack's latency, in seconds, equals the markers' A − C within a millisecond; buckets 1 ms to 10 s.
    const ack = points.find((p) => p.name === 'afterstop.cancel.ack.duration')!.value as { count: number; sum: number; buckets: { boundaries: number[]; counts: number[] } };
    expect(ack.count).toBe(1);
    expect(ack.buckets.boundaries).toEqual(ACK_BUCKETS_S);
    const spans = await capture.spans(run.id);
    const c = named(spans, 'afterstop.cancel.request')[0]!.startNs;
    const a = named(spans, 'afterstop.cancel.ack')[0]!.startNs;
    expect(ack.sum).toBeCloseTo(Number(a - c) / 1e9, 9);
  });

  it('a framework step is not an orphan; a MeterProvider registered later (the app’s own) gets what follows', async () => {
    const run = startRun({ agentName: 'graph', framework: 'langgraph' });
    const step = run.tool({ name: 'agent', callId: 's1', kind: 'step', effect: 'read' }, async () => {
      await sleep(10);
      return 'state';
    });
    await run.cancel();
    run.acknowledge();
    await step;
    run.end();
    expect(sum(await collect(), 'afterstop.tool.orphaned_calls', { 'gen_ai.agent.name': 'graph' })).toBe(0);

    const later = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const laterReader = new PeriodicExportingMetricReader({ exporter: later, exportIntervalMillis: 3_600_000 });
    const laterProvider = new MeterProvider({ readers: [laterReader] });
    metrics.disable();
    metrics.setGlobalMeterProvider(laterProvider);
    try {
      const next = startRun({ agentName: 'late-provider', framework: 'manual' });
      await next.cancel({ source: 'timeout' });
      next.end();
      await laterReader.forceFlush();
      const names = later.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)));
      expect(names).toContain('afterstop.cancel.requests');
    } finally {
      await laterProvider.shutdown();
      metrics.disable();
      metrics.setGlobalMeterProvider(provider);
    }
  });

  it('a tool in flight at Stop whose effect went out of sight (an MCP tools/call) is a possible ghost at its end; read-only, started after Stop, or with a commit after Stop, it is not one more', async () => {
    const before = sum(await collect(), 'afterstop.tool.possible_ghost_commits', { 'gen_ai.agent.name': 'mcp-agent' });
    const run = startRun({ agentName: 'mcp-agent', framework: 'manual' });
    let stopped!: () => void;
    const stop = new Promise<void>((resolve) => (stopped = resolve));
    /** A body that hands its effect to an MCP server (what the mcp marker says), then waits for the Stop. */
    const outOfSight = (effect: 'read' | 'irreversible', commit = false) =>
      run.tool({ name: `mcp_${effect}${commit ? '_committed' : ''}`, effect }, async (ctx) => {
        (ctx as unknown as CommitSink).effectOutOfSight('mcp');
        await stop;
        if (commit) await ctx.commit();
      });
    const calls = [outOfSight('irreversible'), outOfSight('read'), outOfSight('irreversible', true)];
    await run.cancel();
    const late = outOfSight('irreversible'); // started after Stop: loop work, not in flight at Stop
    stopped();
    await Promise.all([...calls, late]);
    run.end();
    const after = sum(await collect(), 'afterstop.tool.possible_ghost_commits', { 'gen_ai.agent.name': 'mcp-agent' });
    expect(after - before).toBe(1);
    expect(sum(await collect(), 'afterstop.tool.possible_ghost_commits', { 'gen_ai.agent.name': 'mcp-agent', 'gen_ai.tool.name': 'mcp_irreversible' })).toBe(1);
  });
});

describe('live metrics: a commit the round trip dates (issue 49, the interval rule)', () => {
  it('a POST sent before Stop and answered after it is a possible ghost (across the Stop); one sent after Stop is a known one', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let answer: (() => void) | undefined;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        // The first request is held until the test says; any later one is answered at once.
        if (answer === undefined) {
          answer = () => res.end('{}');
          received();
        } else res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
    const where = { 'gen_ai.agent.name': 'round-trip-agent' };
    const before = await collect();
    try {
      const run = startRun({ agentName: 'round-trip-agent', framework: 'manual' });
      const across = run.tool({ name: 'send_email', callId: 'r1', detectCommits: true, effect: 'irreversible' }, async () => (await fetch(url, { method: 'POST', body: '{}' })).text());
      await arrived;
      await run.cancel();
      answer!();
      await across;
      await run.tool({ name: 'send_late', callId: 'r2', detectCommits: true, effect: 'irreversible' }, async () => (await fetch(url, { method: 'POST', body: '{}' })).text());
      run.end();
      const after = await collect();
      const delta = (name: string, tool: string): number => sum(after, name, { ...where, 'gen_ai.tool.name': tool }) - sum(before, name, { ...where, 'gen_ai.tool.name': tool });
      expect([delta('afterstop.tool.possible_ghost_commits', 'send_email'), delta('afterstop.tool.commits_after_stop', 'send_email')]).toEqual([1, 0]);
      expect([delta('afterstop.tool.possible_ghost_commits', 'send_late'), delta('afterstop.tool.commits_after_stop', 'send_late')]).toEqual([0, 1]);
    } finally {
      server.close();
    }
  });
});

describe('live metrics without a MeterProvider', () => {
  it('record nothing and cost no more than the check: the API’s no-op provider is recognised', async () => {
    metrics.disable();
    try {
      const { liveInstruments } = await import('../live-metrics.js');
      expect(liveInstruments()).toBeUndefined();
      const run = startRun({ agentName: 'no-provider' });
      await run.cancel();
      run.acknowledge();
      run.end();
    } finally {
      metrics.setGlobalMeterProvider(provider);
    }
    const { liveInstruments } = await import('../live-metrics.js');
    expect(liveInstruments()).toBeDefined();
  });

  // Last: the label caps are the process's, and this test fills them.
  it('tool and agent names of 100 KB: each label value cut to 128 characters (marked), at most 200 values an attribute, the rest counted as `other`', async () => {
    const big = (what: string, i: number): string => `${what}-${i}-`.padEnd(100_000, 'x');
    for (let i = 0; i < 300; i++) {
      const run = startRun({ agentName: big('agent', i), framework: 'manual' });
      let release = (): void => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const tool = run.tool({ name: big('tool', i), callId: `big-${i}`, effect: 'irreversible' }, async (ctx) => {
        await gate;
        await ctx.commit();
        return i;
      });
      void run.cancel({ source: 'user' });
      release();
      await tool;
      run.end();
    }
    const points = await collect();
    const values = (key: string) => new Set(points.map((p) => p.attributes[key]).filter((v): v is string => typeof v === 'string'));
    for (const key of ['gen_ai.agent.name', 'gen_ai.tool.name']) {
      const seen = values(key);
      expect(Math.max(...[...seen].map((v) => v.length))).toBeLessThanOrEqual(MAX_LABEL_CHARS);
      expect(seen.size).toBeLessThanOrEqual(MAX_LABEL_VALUES + 1);
      expect(seen.has(OVERFLOW_LABEL)).toBe(true);
      expect([...seen].filter((v) => v.startsWith(key === 'gen_ai.agent.name' ? 'agent-' : 'tool-')).every((v) => v.length === MAX_LABEL_CHARS && v.endsWith(CUT_MARK))).toBe(true);
    }
    // Nothing lost: every commit after Stop is counted, under a cut name or under `other`.
    const ours = points.filter((p) => p.name === 'afterstop.tool.commits_after_stop' && /^(agent-|other$)/.test(String(p.attributes['gen_ai.agent.name'])));
    expect(ours.reduce((n, p) => n + Number(p.value), 0)).toBe(300);
  });
});
