import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseReport } from '../../clickhouse/report.js';
import { analyze } from '../../index.js';
import { loadPrices } from '../../prices.js';
import { pricesSource } from '../../report-request.js';
import type { LeakReport } from '../../types.js';
import { chdbWithTraces } from '../../../test/helpers/chdb.js';
import { PYTHON_FRAMEWORKS, pythonTurns } from '../../../test/helpers/python-frameworks.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * The leak model inside ClickHouse (chdb, the engine embedded) over the
 * Collector exporter's otel_traces, loaded with each golden trace: the report
 * must equal DuckDB's over the same OTLP/JSON, figure for figure.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const pricesFile = `${golden}prices.json`;
const cases = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const table = (file: string): string => file.replace(/\.jsonl$/, '').replaceAll('-', '_');
// Foreign traces: the Vercel AI SDK's own telemetry, recorded against the simulator (no afterstop markers).
const aiSdk = fileURLToPath(new URL('../../../test/fixtures/ai-sdk/', import.meta.url));
const foreign = fs
  .readdirSync(aiSdk)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
// Python frameworks' traces (test/helpers/python-frameworks.ts), bare and with the README recipe's markers.
const pythonDir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-ch-python-'));
const python = PYTHON_FRAMEWORKS.flatMap((f) =>
  [false, true].map((markers) => {
    const file = path.join(pythonDir, `${f}${markers ? '-markers' : ''}.jsonl`);
    fs.writeFileSync(file, `${pythonTurns(f, { markers }).join('\n')}\n`);
    return file;
  }),
);

// Model calls after C with the provider's usage, with only the client's count, and with neither.
const tokensFile = (() => {
  const t = traces();
  const r = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.model({ startMs: 100, endMs: 300, model: 'gpt-4o', input: 100, output: 20 });
  r.model({ startMs: 200, endMs: 300, model: 'gpt-4o' });
  r.model({ startMs: 200, endMs: 300, model: 'gpt-4o', afterCancel: 60 });
  r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40, ttfcMs: 50 });
  return t.write('tokens-after-c.jsonl');
})();

// The rules of "the truth, re-checked": depth from C (a call between C and a late ack; compensation), prices
// by exact model or dated release only (the table's; genai-prices' for the models it does not list, by
// provider, model and minute), and possible ghost commits (an answer lost after Stop; a tool never ended; a tool whose effect was out of sight).
const recheckedFile = (() => {
  const t = traces();
  const late = t.run({ startMs: 0, endMs: 4000, outcome: 'cancelled' });
  late.cancelRequest(100);
  late.ack(3000);
  late.model({ startMs: 1100, endMs: 1500, model: 'gpt-4o-mini', input: 100, output: 40 });
  late.model({ startMs: 1600, endMs: 1700, model: 'gpt-4o-2024-08-06', input: 100, output: 40 });
  late.model({ startMs: 1700, endMs: 1800, model: 'claude-sonnet-4@20250514', provider: 'gcp.vertex_ai', input: 10, output: 4 });
  late.model({ startMs: 1800, endMs: 1900, model: 'my-finetune-7b', provider: null, input: 10, output: 4 });
  const comp = t.run({ startMs: 5000, endMs: 6000, outcome: 'cancelled' });
  comp.cancelRequest(5100);
  comp.ack(5110);
  comp.tool({ name: 'refund', callId: 'r', startMs: 5200, endMs: 5300, toolKind: 'compensate', effect: 'reversible' });
  const possible = t.run({ startMs: 7000, endMs: 8000, outcome: 'cancelled' });
  possible.cancelRequest(7100);
  possible.ack(7105);
  possible.tool({ name: 'send_email', callId: 'a', startMs: 7050, endMs: 7102, effect: 'irreversible' });
  possible.commit({ callId: 'a', atMs: 7101, evidence: 'request_sent', unansweredMs: 40.25 });
  possible.tool({ name: 'book', callId: 'b', startMs: 7060, effect: 'reversible' });
  possible.tool({ name: 'lookup', callId: 'c', startMs: 7060, effect: 'read' });
  // In flight at Stop, its effect out of sight (an MCP tools/call): possible (out_of_sight), the run below depth 4.
  possible.tool({ name: 'mcp_send', callId: 'd', startMs: 7070, endMs: 7103, effect: 'irreversible', result: 'cancelled', attrs: { 'afterstop.tool.out_of_sight': 'mcp' } });
  return t.write('rechecked.jsonl');
})();

// The same span ids in three traces (ids unique only within a trace): three runs, keyed by trace and span id.
const sameIdsFiles = [0, 1, 2].map((i) => {
  const t = traces();
  const r = t.run({ traceId: `${i + 1}${'0'.repeat(31)}`, conversation: `conv-${i}`, startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.tool({ name: 'send_email', callId: 'call_1', startMs: 50, endMs: 400, effect: 'irreversible' });
  r.commit({ callId: 'call_1', atMs: 300 });
  return t.write(`same-ids-${i}.jsonl`);
});

// A run seen twice: afterstop's, and the app's @ai-sdk/otel spans nested right under it (and a sub-agent under its tool).
const mirroredFile = (() => {
  const t = traces();
  const r = t.run({ framework: 'vercel-ai', startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(300);
  r.ack(310);
  r.model({ startMs: 10, endMs: 200, model: 'gpt-4o', input: 10, output: 8 });
  const tool = r.tool({ name: 'send_email', callId: 'call_1', startMs: 210, endMs: 700, effect: 'irreversible' });
  r.commit({ callId: 'call_1', atMs: 650 });
  const mirror = t.run({ traceId: r.traceId, parent: r.spanId, stamp: false, name: 'invoke_agent gpt-4o', startMs: 5, endMs: 800 });
  const step = mirror.span({ name: 'step 1', startMs: 6, endMs: 790 });
  mirror.span({ name: 'chat gpt-4o', parent: step, startMs: 10, endMs: 200, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.output_tokens': 8 } });
  mirror.span({ name: 'execute_tool send_email', parent: step, startMs: 210, endMs: 700, attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': 'call_1' } });
  t.run({ traceId: r.traceId, parent: tool, stamp: false, name: 'invoke_agent helper', startMs: 300, endMs: 400 });
  return t.write('mirrored.jsonl');
})();

// The Stop across an MCP boundary (issue 48): a server's tools/call joined to the client call it lies under (its
// commit after Stop known, the client's possible one superseded), a Stop that did not cross (via none), a handler
// that finished after the cancel and ran past the budget, a server without its client (its cancel the Stop), another
// instrumentation's MCP client span, and a foreign tool's commit marker without a call id.
const mcpFile = (() => {
  const t = traces();
  const mcp = (via: string) => ({
    'mcp.method.name': 'tools/call',
    'jsonrpc.request.id': '7',
    'afterstop.mcp.side': 'client',
    'afterstop.mcp.server': 'mail-server',
    'afterstop.tool.out_of_sight': 'mcp',
    'afterstop.mcp.cancel.via': via,
  });
  const joined = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
  joined.cancelRequest(100);
  joined.ack(120);
  const call = joined.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 105, result: 'cancelled', effect: 'irreversible', attrs: mcp('notification') });
  joined.commit({ callId: 'c1', atMs: 105, evidence: 'request_sent', unansweredMs: 40, attrs: { 'mcp.method.name': 'tools/call' } });
  const server = joined.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 1500, handler: 'finished_after_cancel', commitCount: 1 });
  server.cancelReceived(110);
  server.commit(300);
  const none = t.run({ startMs: 2000, endMs: 2900, outcome: 'cancelled' });
  none.cancelRequest(2100);
  none.ack(2120);
  none.tool({ name: 'search', callId: 'n1', startMs: 2050, endMs: 2105, effect: 'read', result: 'cancelled', attrs: mcp('none') });
  none.span({ name: 'tools/call lookup', kind: 3, startMs: 2010, endMs: 2040, scope: '@example/mcp-otel', attrs: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'lookup' } });
  const foreignTool = none.tool({ name: 'post', callId: 'adk-1', startMs: 2010, endMs: 2400, startMarker: false }); // its call id set at its end, after the marker
  none.marker('afterstop.tool.commit', 2300, { 'gen_ai.tool.name': 'post', 'afterstop.tool.foreign': true, 'afterstop.tool.commit.evidence': 'response' }, foreignTool);
  const alone = none.mcpServer({ tool: 'send_email', parent: null, startMs: 3000, endMs: 3400, handler: 'finished_after_cancel', commitCount: 1 });
  alone.cancelReceived(3100, 'stream_closed');
  alone.commit(3300);
  // Another instrumentation's client (its Stop inferred from its abort) with afterstop's server joined.
  const foreignClient = t.run({ startMs: 4000, endMs: 4900, stamp: false, name: 'invoke_agent mailer' });
  foreignClient.span({ name: 'chat gpt-4o', kind: 3, startMs: 4010, endMs: 4100, scope: '@example/genai', status: 'error', attrs: { 'gen_ai.operation.name': 'chat', 'error.type': 'cancelled' } });
  const fc = foreignClient.span({ name: 'tools/call send_email', kind: 3, startMs: 4050, endMs: 4400, scope: '@example/mcp-otel', attrs: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'send_email' } });
  const fcServer = foreignClient.mcpServer({ tool: 'send_email', parent: fc, startMs: 4060, endMs: 4350, handler: 'finished_after_cancel', commitCount: 1 });
  fcServer.toolStart(4060);
  fcServer.commit(4300);
  return t.write('mcp-boundary.jsonl');
})();

// The far side's witness (issue 49): a service in its own process, its clock 5 s ahead, under the tools' requests:
// its write after Stop (known, confirmed), its write before Stop with an answered request bounding the clocks
// (ruled out), a write that failed (ruled out), a service that only received the request (possible), a response
// across Stop (possible, across_stop), a witness inside the bound, and an MCP server's commit 5 s behind.
const witnessFile = (() => {
  const t = traces();
  const stopped = (startMs: number) => {
    const r = t.run({ startMs, endMs: startMs + 900, outcome: 'cancelled' });
    r.cancelRequest(startMs + 100);
    r.ack(startMs + 120);
    return r;
  };
  const service = (r: ReturnType<typeof stopped>, name: string, shift: number) => ({
    entry: (parent: string, startMs: number, endMs: number) => r.serviceSpan({ name: 'POST /orders', parent, kind: 2, service: name, startMs: startMs + shift, endMs: endMs + shift }),
    work: (parent: string, startMs: number, endMs: number, failed = false) =>
      r.serviceSpan({ name: 'INSERT orders', parent, kind: 3, service: name, startMs: startMs + shift, endMs: endMs + shift, attrs: { 'db.system.name': 'postgresql' }, ...(failed ? { status: 'error' as const } : {}) }),
  });
  const cut = (r: ReturnType<typeof stopped>, callId: string, at: number, sent = 90, lost = 150) => {
    r.tool({ name: 'send_order', callId, startMs: at + sent - 10, endMs: at + lost, result: 'cancelled', effect: 'irreversible' });
    const request = r.request({ callId, startMs: at + sent - 10, endMs: at + lost });
    r.commit({ callId, atMs: at + lost, evidence: 'request_sent', unansweredMs: lost - sent, requestSpanId: request });
    return request;
  };
  const during = stopped(0);
  const d = service(during, 'orders-api', 5000);
  d.work(d.entry(cut(during, 'd1', 0), 95, 400), 200, 250);
  const before = stopped(1000);
  const b = service(before, 'billing-api', 5000);
  before.tool({ name: 'list', callId: 'b0', startMs: 1005, endMs: 1016, effect: 'read' });
  b.entry(before.request({ callId: 'b0', startMs: 1005, endMs: 1015, status: 200 }), 1006, 1014);
  b.work(b.entry(cut(before, 'b1', 1000, 30, 130), 1031, 1060), 1035, 1040);
  const failed = stopped(2000);
  const f = service(failed, 'mail-api', 5000);
  f.work(f.entry(cut(failed, 'f1', 2000), 2095, 2300), 2200, 2250, true);
  const received = stopped(3000);
  const rs = service(received, 'audit-api', 5000);
  rs.entry(cut(received, 'r1', 3000), 3095, 3300);
  const across = stopped(4000);
  across.tool({ name: 'pay', callId: 'x1', startMs: 4040, endMs: 4160, effect: 'irreversible' });
  across.commit({ callId: 'x1', atMs: 4150, evidence: 'response', roundTripMs: 100 });
  const inside = stopped(5000);
  const i = service(inside, 'orders-api', 0);
  inside.tool({ name: 'send_order', callId: 'i1', startMs: 5055, endMs: 5205, effect: 'irreversible' });
  const iReq = inside.request({ callId: 'i1', startMs: 5060, endMs: 5200, status: 201 });
  inside.commit({ callId: 'i1', atMs: 5200, evidence: 'response', roundTripMs: 130, requestSpanId: iReq });
  i.work(i.entry(iReq, 5062, 5195), 5095, 5105);
  const mcp = stopped(6000);
  const call = mcp.tool({
    name: 'send_email',
    callId: 'm1',
    startMs: 6050,
    endMs: 6105,
    result: 'cancelled',
    attrs: { 'mcp.method.name': 'tools/call', 'afterstop.mcp.side': 'client', 'afterstop.tool.out_of_sight': 'mcp' },
  });
  mcp.mcpServer({ tool: 'send_email', parent: call, startMs: 6052 - 5000, endMs: 6400 - 5000, commitCount: 1 }).commit(6300 - 5000);
  // The request span never exported: the service's entry under the span id the commit names, its write failed.
  const unexported = stopped(7000);
  unexported.tool({ name: 'send_order', callId: 'e1', startMs: 7080, endMs: 7150, result: 'cancelled', effect: 'irreversible' });
  const missing = t.newSpanId();
  unexported.commit({ callId: 'e1', atMs: 7150, evidence: 'request_sent', unansweredMs: 60, requestSpanId: missing });
  const e = service(unexported, 'orders-api', 0);
  e.work(e.entry(missing, 7095, 7300), 7200, 7250, true);
  return t.write('far-side-witness.jsonl');
})();

let ch: Awaited<ReturnType<typeof chdbWithTraces>>;
beforeAll(async () => {
  ch = await chdbWithTraces({
    ...Object.fromEntries(cases.map((f) => [table(f), { files: [`${golden}${f}`] }])),
    all_golden: { files: cases.map((f) => `${golden}${f}`) },
    all_golden_old: { files: cases.map((f) => `${golden}${f}`), spelling: 'old' },
    all_golden_json: { files: cases.map((f) => `${golden}${f}`), schema: 'json' },
    ...Object.fromEntries(foreign.map((f) => [`ai_${table(f)}`, { files: [`${aiSdk}${f}`] }])),
    ...Object.fromEntries(python.map((f) => [`py_${table(path.basename(f))}`, { files: [f] }])),
    // The same spans twice, as a retried Collector batch stores them.
    retried: { files: [`${golden}g2-ghost-email.jsonl`, `${golden}g2-ghost-email.jsonl`] },
    tokens_after_c: { files: [tokensFile] },
    rechecked: { files: [recheckedFile] },
    same_ids: { files: sameIdsFiles },
    mirrored: { files: [mirroredFile] },
    mcp_boundary: { files: [mcpFile] },
    far_side_witness: { files: [witnessFile] },
    all_golden_oldest: { files: cases.map((f) => `${golden}${f}`), spelling: 'old', schema: 'oldest' },
  });
});
afterAll(async () => {
  await ch?.close();
  fs.rmSync(pythonDir, { recursive: true, force: true });
});

const figures = (r: LeakReport): Omit<LeakReport, 'input'> => {
  const { input: _input, ...rest } = r;
  return rest;
};

async function both(files: string[], tableName: string): Promise<{ duck: LeakReport; click: LeakReport }> {
  const duck = await analyze({ inputs: files, db: ':memory:', pricesFile });
  const source = ch.source(tableName);
  const click = await clickhouseReport(source, { prices: loadPrices(pricesFile), pricesSource: pricesSource(pricesFile) });
  return { duck, click };
}

describe('the leak model in ClickHouse', () => {
  for (const file of cases) {
    it(`${file}: the report DuckDB gives`, async () => {
      const { duck, click } = await both([`${golden}${file}`], table(file));
      expect(figures(click)).toEqual(figures(duck));
      expect(click.input.spans_read).toBe(duck.input.spans_read);
    });
  }

  it('all golden traces together, with the exporter’s old enum spellings too', async () => {
    const files = cases.map((f) => `${golden}${f}`);
    const { duck, click } = await both(files, 'all_golden');
    expect(figures(click)).toEqual(figures(duck));
    expect(click.totals).toMatchObject({ runs: 9, cancelled_runs: 5, ghost_commits: 1, replay_duplicates: 1 });
    expect(click.findings.length).toBeGreaterThan(0);
    const old = await clickhouseReport(ch.source('all_golden_old'), { prices: loadPrices(pricesFile), pricesSource: pricesSource(pricesFile) });
    expect(figures(old)).toEqual(figures(duck));
  });

  it('JSON attribute columns (the exporter’s json option), and the oldest schema (no ScopeName), give the same report', async () => {
    const files = cases.map((f) => `${golden}${f}`);
    const duck = await analyze({ inputs: files, db: ':memory:', pricesFile });
    for (const table of ['all_golden_json', 'all_golden_oldest']) {
      const click = await clickhouseReport(ch.source(table), { prices: loadPrices(pricesFile), pricesSource: pricesSource(pricesFile) });
      expect(figures(click), table).toEqual(figures(duck));
    }
  });

  it('a run seen twice (afterstop’s and @ai-sdk/otel’s spans nested in it): one run, each call once, as DuckDB', async () => {
    const { duck, click } = await both([mirroredFile], 'mirrored');
    expect(figures(click)).toEqual(figures(duck));
    expect(duck.totals).toMatchObject({ runs: 2, cancelled_runs: 1, ghost_commits: 1 });
  });

  for (const file of foreign) {
    it(`a foreign trace, ${file} (the AI SDK's own spans): the report DuckDB gives`, async () => {
      const { duck, click } = await both([`${aiSdk}${file}`], `ai_${table(file)}`);
      expect(click.totals.runs).toBeGreaterThan(0);
      expect(figures(click)).toEqual(figures(duck));
    });
  }

  for (const file of python) {
    it(`a Python framework's trace, ${path.basename(file)}: the report DuckDB gives`, async () => {
      const { duck, click } = await both([file], `py_${table(path.basename(file))}`);
      expect(figures(click)).toEqual(figures(duck));
    });
  }

  it('model calls after the Stop with and without the provider’s usage: the tokens DuckDB counts', async () => {
    const { duck, click } = await both([tokensFile], 'tokens_after_c');
    expect(duck.totals.tokens_after_stop).toMatchObject({ output: 20 + 60 + 35, calls_without_usage: 1 });
    expect(figures(click)).toEqual(figures(duck));
  });

  it('the truth re-checked (depth from C, exact prices, possible ghost commits): the figures and findings DuckDB gives', async () => {
    const { duck, click } = await both([recheckedFile], 'rechecked');
    expect(duck.totals.cancel_depth).toEqual({ '0': 1, '1': 0, '2': 1, '3': 0, '4': 1 });
    expect(duck.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 3, ghost_commits_possible_alarming: 2 });
    expect(duck.totals.tokens_after_stop_by_model.map((m) => [m.model, m.priced])).toEqual(
      expect.arrayContaining([
        ['gpt-4o-mini', true],
        ['gpt-4o-2024-08-06', true],
        ['claude-sonnet-4@20250514', true],
        ['my-finetune-7b', false],
      ]),
    );
    // gpt-4o-mini at its own price (genai-prices), never gpt-4o's (the table's)
    expect(duck.totals.tokens_after_stop_by_model.find((m) => m.model === 'gpt-4o-mini')?.ghost_tax_usd).toBeCloseTo(100 * 0.15e-6 + 40 * 0.6e-6, 12);
    expect(duck.totals.tokens_after_stop).toMatchObject({ unpriced_tokens: { input: 10, output: 4 } });
    expect(duck.findings.filter((f) => f.kind === 'possible_ghost_commit')).toHaveLength(3);
    expect(figures(click)).toEqual(figures(duck));
  });

  it('the Stop across an MCP boundary (a joined server, a Stop that did not cross, a server without its client): the figures and findings DuckDB gives', async () => {
    const { duck, click } = await both([mcpFile], 'mcp_boundary');
    expect(duck.totals).toMatchObject({ runs: 4, cancelled_runs: 4, ghost_commits: 4, ghost_commits_possible: 0, ghost_commits_inferred: 0 });
    expect(duck.totals.cancel_depth).toEqual({ '0': 0, '1': 0, '2': 1, '3': 3, '4': 0 });
    expect(duck.findings.filter((f) => f.kind.startsWith('mcp_')).map((f) => f.kind)).toEqual([
      'mcp_handler_finished_after_cancel',
      'mcp_cancel_not_propagated',
      'mcp_handler_finished_after_cancel',
      'mcp_handler_finished_after_cancel',
    ]);
    expect(figures(click)).toEqual(figures(duck));
  });

  it("the far side's witness (a service's spans, its clock shifted; an MCP server's commit mapped through the bound): the figures and findings DuckDB gives", async () => {
    const { duck, click } = await both([witnessFile], 'far_side_witness');
    expect(duck.totals).toMatchObject({ runs: 8, ghost_commits: 2, ghost_commits_possible: 3, ghost_commits_confirmed: 2, ghost_commits_ruled_out: 3 });
    expect(
      duck.findings
        .filter((x) => x.kind.startsWith('commit_'))
        .map((x) => x.kind)
        .sort(),
    ).toEqual(['commit_inside_clock_bound', 'commit_witnessed_by_service', 'commit_witnessed_by_service', 'commit_witnessed_by_service', 'commit_witnessed_by_service']);
    expect(figures(click)).toEqual(figures(duck));
  });

  it('the same span ids in three traces: three runs, as in DuckDB', async () => {
    const { duck, click } = await both(sameIdsFiles, 'same_ids');
    expect(duck.totals).toMatchObject({ runs: 3, cancelled_runs: 3, ghost_commits: 3 });
    expect(figures(click)).toEqual(figures(duck));
  });

  it('a span stored twice (a retried batch) counts once, as in DuckDB', async () => {
    const { duck, click } = await both([`${golden}g2-ghost-email.jsonl`], 'retried');
    expect(figures(click)).toEqual(figures(duck));
  });

  it('a table that is not there, or not the exporter’s, is said by name', async () => {
    await expect(clickhouseReport(ch.source('nope'), { prices: loadPrices(pricesFile), pricesSource: pricesSource(pricesFile) })).rejects.toThrow('no table otel.nope');
    await expect(clickhouseReport(ch.source('one', 'system'), { prices: loadPrices(pricesFile), pricesSource: pricesSource(pricesFile) })).rejects.toThrow(
      /system\.one is not an OpenTelemetry Collector ClickHouse exporter traces table/,
    );
  });
});
