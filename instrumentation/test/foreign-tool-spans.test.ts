import { context, ROOT_CONTEXT, SpanKind, trace, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitFencedError, setup, withRun } from '../index.js';
import { detectorDisabled, detectorEnabled } from '../commit-detection.js';
import { ForeignToolSpanProcessor, foreignToolsFollowed, isForeignToolSpan, MAX_FOREIGN_TOOLS } from '../foreign-tool-spans.js';
import { setupGuard } from '../guard/setup.js';
import { activeTool, foreignTools } from '../run-context.js';
import type { RecordingSpan } from '../provider/sdk-types.js';
import { startSimulator, type Simulator } from '../../analyzer/simulator/index.js';
import { captureTraces, named, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * The tool calls of frameworks afterstop does not patch (Google ADK, Strands): their own `execute_tool` spans,
 * started through the global tracer (afterstop's provider), are followed from their start to their end
 * (foreign-tool-spans.ts), and a mutating request made with such a span active is a commit of that call.
 * A tracer named as ADK's and Strands' stands in for the framework (the e2e test runs the real ones).
 */
let capture: TraceCapture;
let sim: Simulator;
beforeAll(async () => {
  capture = captureTraces();
  sim = await startSimulator();
  // As afterstop/register's http-commits instrumentation does.
  detectorEnabled();
});
afterAll(async () => {
  detectorDisabled();
  setupGuard(undefined, {});
  await sim.close();
  await capture.close();
});

const adk = () => trace.getTracer('gcp.vertex.agent', '2.0.0');
const post = (url: string): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"alice@example.com"}' });

/** A span as a span processor sees it at its start: a name, attributes and an instrumentation scope. */
const fakeSpan = (name: string, scope: string, attributes: Record<string, unknown> = {}): RecordingSpan => ({ name, attributes, instrumentationScope: { name: scope } }) as unknown as RecordingSpan;

describe('foreign execute_tool spans (frameworks afterstop does not patch)', () => {
  it('what is a foreign tool span: named execute_tool or gen_ai.operation.name = execute_tool, of a scope not afterstop’s', () => {
    expect(isForeignToolSpan(fakeSpan('execute_tool send_email', 'gcp.vertex.agent'))).toBe(true);
    expect(isForeignToolSpan(fakeSpan('tool call', 'strands-agents', { 'gen_ai.operation.name': 'execute_tool' }))).toBe(true);
    expect(isForeignToolSpan(fakeSpan('execute_tool send_email', 'afterstop'))).toBe(false);
    expect(isForeignToolSpan(fakeSpan('invoke_agent support', 'gcp.vertex.agent', { 'gen_ai.operation.name': 'invoke_agent' }))).toBe(false);
    // SDK 1.x names the scope instrumentationLibrary.
    expect(isForeignToolSpan({ name: 'execute_tool x', attributes: {}, instrumentationLibrary: { name: 'afterstop' } })).toBe(false);
  });

  it('followed from its start to its end: activeTool() finds it while it is the active span, and it is forgotten at its end', async () => {
    const before = foreignToolsFollowed();
    let inside: ReturnType<typeof activeTool>;
    let span: Span | undefined;
    await adk().startActiveSpan('execute_tool send_email', async (s) => {
      span = s;
      inside = activeTool();
      s.end();
    });
    expect(inside?.toolName).toBe('send_email');
    expect(inside?.detectsCommits).toBe(true);
    expect(foreignTools.has(span!)).toBe(false);
    expect(foreignToolsFollowed()).toBe(before);
    // Another scope's span that is no tool call, and afterstop's own tool spans, are not followed.
    adk().startActiveSpan('invoke_agent support', (s) => {
      expect(activeTool()).toBeUndefined();
      s.end();
    });
  });

  it('bounded: past MAX_FOREIGN_TOOLS open at once, the next is not followed; ended ones make room again', () => {
    const processor = new ForeignToolSpanProcessor();
    const open = foreignToolsFollowed();
    const spans = Array.from({ length: MAX_FOREIGN_TOOLS - open + 1 }, (_, i) => fakeSpan(`execute_tool t${i}`, 'strands-agents'));
    for (const s of spans) processor.onStart(s, ROOT_CONTEXT);
    expect(foreignToolsFollowed()).toBe(MAX_FOREIGN_TOOLS);
    expect(foreignTools.has(spans.at(-1)!)).toBe(false);
    expect(foreignTools.has(spans[0]!)).toBe(true);
    for (const s of spans) processor.onEnd(s);
    expect(foreignToolsFollowed()).toBe(open);
    expect(spans.some((s) => foreignTools.has(s))).toBe(false);
  });

  it('never throws: a span whose fields throw, an end it never saw, twice the same start', () => {
    const processor = new ForeignToolSpanProcessor();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('hostile');
        },
      },
    ) as RecordingSpan;
    expect(() => processor.onStart(hostile, ROOT_CONTEXT)).not.toThrow();
    expect(() => processor.onEnd(hostile)).not.toThrow();
    expect(() => processor.onEnd(fakeSpan('execute_tool never_started', 'x'))).not.toThrow();
    const open = foreignToolsFollowed();
    const s = fakeSpan('execute_tool twice', 'x');
    processor.onStart(s, ROOT_CONTEXT);
    processor.onStart(s, ROOT_CONTEXT);
    expect(foreignToolsFollowed()).toBe(open + 1);
    processor.onEnd(s);
    processor.onEnd(s);
    expect(foreignToolsFollowed()).toBe(open);
  });

  it("a POST made with the foreign span active is its commit: a marker child of that span, the span's tool name and call id, afterstop.tool.foreign", async () => {
    let spanId = '';
    await trace
      .getTracer('strands-agents')
      .startActiveSpan('execute_tool send_email', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'send_email', 'gen_ai.tool.call.id': 'tooluse_foreign_1' } }, async (s) => {
        spanId = s.spanContext().spanId;
        await (await post(`${sim.url}/effects/foreign_email?delayMs=5`)).json();
        s.end();
      });
    // Outside it (no tool active), the same POST is no commit.
    await (await post(`${sim.url}/effects/foreign_email?delayMs=5`)).json();
    const commits = named(await capture.spans(), 'afterstop.tool.commit').filter((c) => c.attributes['afterstop.tool.foreign'] === true && c.parentSpanId === spanId);
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'send_email',
      'gen_ai.tool.call.id': 'tooluse_foreign_1',
      'afterstop.tool.commit.evidence': 'response',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'afterstop.tool.effect': 'unknown',
    });
    // No afterstop run: no run id, no cancel state (afterstop knows of no Stop).
    expect(commits[0]!.attributes['afterstop.run.id']).toBeUndefined();
    expect(commits[0]!.attributes['afterstop.cancel.state']).toBeUndefined();
    expect(commits[0]!.traceId).toBe(named(await capture.spans(), 'execute_tool send_email').find((s) => s.spanId === spanId)?.traceId);
  });

  it('a span of the body’s own work under it (an HTTP client span active while node:http makes the request) is the same call; a sub-agent’s GenAI span under it is not', async () => {
    const before = foreignToolsFollowed();
    let toolSpanId = '';
    let inSubAgent: unknown = 'not run';
    await adk().startActiveSpan('execute_tool send_email', async (tool) => {
      toolSpanId = tool.spanContext().spanId;
      // As @opentelemetry/instrumentation-http makes its span the active one around http.request.
      await trace.getTracer('@opentelemetry/instrumentation-http').startActiveSpan('POST', { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'POST' } }, async (client) => {
        await (await post(`${sim.url}/effects/body_span_email?delayMs=5`)).json();
        client.end();
      });
      adk().startActiveSpan('invoke_agent helper', (sub) => {
        inSubAgent = activeTool();
        sub.end();
      });
      tool.end();
    });
    expect(inSubAgent).toBeUndefined();
    expect(foreignToolsFollowed()).toBe(before);
    const commits = named(await capture.spans(), 'afterstop.tool.commit').filter((c) => c.attributes['afterstop.tool.foreign'] === true && c.parentSpanId === toolSpanId);
    expect(commits.map((c) => c.attributes['gen_ai.tool.name'])).toEqual(['send_email']);
  });

  it('inside an afterstop run (the framework called in its context), stopped: the fence holds the foreign tool’s POST, and its markers carry the run', async () => {
    setup({ guard: { fence: true } });
    let runId = '';
    const error = await withRun({ framework: 'manual' }, async (run) => {
      runId = run.id;
      return adk().startActiveSpan('execute_tool send_email', async (s) => {
        await run.cancel();
        try {
          await post(`${sim.url}/effects/fenced_foreign_email?delayMs=5`);
          return undefined;
        } catch (e) {
          return e;
        } finally {
          s.end();
        }
      });
    }).catch((e: unknown) => e);
    setupGuard(undefined, {});
    expect(CommitFencedError.isInstance(error)).toBe(true);
    expect(sim.ledger.effects.filter((e) => e.name === 'fenced_foreign_email')).toHaveLength(0);
    const prevented = named(await capture.spans(runId), 'afterstop.tool.commit.prevented');
    expect(prevented).toHaveLength(1);
    expect(prevented[0]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'send_email', 'afterstop.tool.foreign': true, 'afterstop.cancel.state': 'requested' });
  });

  it('activeTool() outside any tool is still none (no active span, or one that is not followed)', () => {
    expect(context.with(ROOT_CONTEXT, () => activeTool())).toBeUndefined();
  });
});
