import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../ingest/ingest.js';
import { Store } from '../../store.js';
import { analyzeTraces, sqlRows, storedRows, traces } from '../../../test/helpers/trace-builder.js';

/** store-files.sql and assign-runs.sql (through prepare-spans.sql, the view over the store): every span with its role and its run (report_spans). */
describe('assign-runs', () => {
  it('runs are keyed by trace and span id: the same span ids in four traces are four runs, each with its own ghost', async () => {
    // Span ids are unique only within a trace: four builders number their spans alike.
    const files = ['a', 'b', 'c', 'd']
      .map((tag, i) => {
        const t = traces();
        const r = t.run({ traceId: `${String(i + 1).padStart(2, '0')}${'0'.repeat(30)}`, conversation: `conv-${tag}`, startMs: 0, endMs: 900, outcome: 'cancelled' });
        r.cancelRequest(100);
        r.tool({ name: 'send_email', callId: 'call_1', startMs: 50, endMs: 400, effect: 'irreversible' });
        r.commit({ callId: 'call_1', atMs: 300 });
        // A foreign trace too, whose root is the run (assign-runs), with the same span ids in each.
        const f = traces();
        const root = f.run({
          traceId: `f${i}${'0'.repeat(30)}`,
          name: 'ai.streamText',
          startMs: 0,
          endMs: 900,
          attrs: { 'ai.operationId': 'ai.streamText', 'ai.response.finishReason': 'stop', 'ai.usage.outputTokens': 5 },
        });
        root.span({ name: 'ai.toolCall', startMs: 10, endMs: 20 });
        return [t.write(`same-ids-${tag}.jsonl`), f.write(`same-ids-foreign-${tag}.jsonl`)];
      })
      .flat();
    const a = await analyzeTraces(files);
    const total = await a.total('runs');
    const ghosts = await a.total('ghost-commits');
    a.close();
    expect(total).toMatchObject({ runs: 8, cancelled_runs: 4 });
    expect(ghosts).toMatchObject({ ghost_commits: 4 });
  });

  it('gives each span its role, run, call and model facts', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', startMs: 0, endMs: 900, outcome: 'completed' });
    const model = r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40, ttfcMs: 50 });
    const tool = r.tool({ name: 'send_email', callId: 'call_1', startMs: 600, endMs: 700, startMarker: false });
    const other = r.span({ name: 'db.query', startMs: 610, endMs: 620, parent: tool });
    const req = r.cancelRequest(800);
    const a = await analyzeTraces(t);
    const rows = await a.table('report_spans', 'ORDER BY span_id');
    const by = (id: string) => rows.find((x) => x['span_id'] === id)!;
    expect(rows.every((x) => x['run_id'] === r.spanId && x['conversation_id'] === 'c1')).toBe(true);
    expect(by(r.spanId)['role']).toBe('run');
    expect(by(model)).toMatchObject({ role: 'model', model: 'gpt-4o', input_tokens: 10, output_tokens: 40, time_to_first_chunk_s: 0.05 });
    expect(by(tool)).toMatchObject({ role: 'tool', tool_name: 'send_email', tool_call_id: 'call_1' });
    expect(by(other)['role']).toBe('other');
    expect(by(req)['role']).toBe('marker');
    a.close();
  });

  it('tells a cancellation from a failure', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900 });
    const ids = [
      r.tool({ name: 'a', startMs: 1, endMs: 2, errorType: 'cancelled', status: 'error' }),
      r.tool({ name: 'b', startMs: 1, endMs: 2, status: { code: 'error', message: 'The operation was aborted' } }),
      r.tool({ name: 'c', startMs: 1, endMs: 2, status: 'error', exceptions: [{ type: 'asyncio.CancelledError' }] }),
      r.tool({ name: 'd', startMs: 1, endMs: 2, errorType: 'RunCancelled', status: 'error' }),
      r.tool({ name: 'e', startMs: 1, endMs: 2, status: { code: 'error', message: '500 boom' }, exceptions: [{ type: 'Error', message: 'boom' }] }),
    ];
    const a = await analyzeTraces(t);
    const rows = await a.table('report_spans', "WHERE role = 'tool' ORDER BY tool_name");
    expect(rows.map((x) => x['is_cancellation'])).toEqual([true, true, true, true, false]);
    expect(rows.map((x) => x['span_id'])).toEqual(ids);
    a.close();
  });

  it('a run whose run span was never exported: its spans keep their afterstop.run.id', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, exported: false });
    r.cancelRequest(100);
    r.tool({ name: 'x', callId: 'c', startMs: 50 });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_spans');
    expect(rows.map((x) => x['name']).sort()).toEqual(['afterstop.cancel.request', 'afterstop.tool.start']);
    expect(rows.every((x) => x['run_id'] === r.spanId)).toBe(true);
    a.close();
  });

  // Spans without gen_ai.operation.name get is_run_span NULL (NULL OR false), and the walk up stops at once.
  it('a foreign trace without invoke_agent: its root is the run of all its spans', async () => {
    const t = traces();
    const r = t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 900 });
    const step = r.span({ name: 'ai.streamText.doStream', startMs: 0, endMs: 500, attrs: { 'gen_ai.request.model': 'gpt-4o' } });
    r.span({ name: 'ai.toolCall', startMs: 100, endMs: 200, parent: step });
    const a = await analyzeTraces(t);
    expect((await a.table('report_spans', 'ORDER BY span_id')).map((x) => x['run_id'])).toEqual([r.spanId, r.spanId, r.spanId]);
    a.close();
  });

  // METRICS.md (intro): a missing span in the middle of a trace that has its root only re-parents its children to the run.
  it('a span whose parent is missing, in a trace that has its run span, belongs to that run', async () => {
    const t = traces();
    const r = t.run({ stamp: false, startMs: 0, endMs: 900 });
    const child = r.model({ parent: 'missing', startMs: 100, endMs: 200, model: 'gpt-4o', input: 1, output: 1 });
    const a = await analyzeTraces(t);
    expect((await a.table('report_spans', `WHERE span_id = '${child}'`))[0]!['run_id']).toBe(r.spanId);
    a.close();
  });

  it('a foreign trace (AI SDK) whose aborted step span was never ended: its children belong to the root run', async () => {
    const t = traces();
    const r = t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 900 });
    const tool = r.span({ name: 'execute_tool x', parent: 'missing', startMs: 100, endMs: 200, attrs: { 'gen_ai.operation.name': 'execute_tool' } });
    const a = await analyzeTraces(t);
    expect((await a.table('report_spans', `WHERE span_id = '${tool}'`))[0]!['run_id']).toBe(r.spanId);
    expect(await a.table('report_runs')).toHaveLength(1);
    a.close();
  });

  // METRICS.md (intro): runs of one conversation share gen_ai.conversation.id (or session.id, or the framework's thread id).
  it('reads session.id as the conversation when gen_ai.conversation.id is absent', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, attrs: { 'session.id': 's-1' } });
    r.model({ startMs: 0, endMs: 100, model: 'gpt-4o', attrs: { 'session.id': 's-1' } });
    const a = await analyzeTraces(t);
    expect((await a.table('report_spans')).map((x) => x['conversation_id'])).toEqual(['s-1', 's-1']);
    a.close();
  });

  it('a model span inside a model span is one call seen by two instrumentations: only the outer one is a model call', async () => {
    const t = traces();
    const r = t.run({ name: 'ai.generateText', stamp: false, startMs: 0, endMs: 900, attrs: { 'ai.operationId': 'ai.generateText' } });
    const outer = r.span({ name: 'ai.generateText.doGenerate', startMs: 10, endMs: 500, attrs: { 'ai.model.id': 'gpt-4o', 'ai.usage.completionTokens': 40 } });
    const inner = r.span({ name: 'chat gpt-4o', parent: outer, startMs: 20, endMs: 490, attrs: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.output_tokens': 40 } });
    const a = await analyzeTraces(t);
    const roles = Object.fromEntries((await a.table('report_spans')).map((x) => [x['span_id'], x['role']]));
    a.close();
    expect([roles[outer], roles[inner]]).toEqual(['model', 'other']);
  });

  it('a foreign invoke_agent right under an afterstop run is that run seen twice (@ai-sdk/otel beside afterstop): it and its spans count for nothing of their own; one under a tool is a sub-agent', async () => {
    const t = traces();
    const r = t.run({ framework: 'vercel-ai', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(300);
    r.model({ startMs: 10, endMs: 200, model: 'gpt-4o', input: 10, output: 8 });
    const tool = r.tool({ name: 'send_email', callId: 'call_1', startMs: 210, endMs: 700, effect: 'irreversible' });
    r.commit({ callId: 'call_1', atMs: 650 });
    // The app's own GenAI spans of the same call, nested in afterstop's run.
    const mirror = t.run({ traceId: r.traceId, parent: r.spanId, stamp: false, name: 'invoke_agent gpt-4o', startMs: 5, endMs: 800 });
    const step = mirror.span({ name: 'step 1', startMs: 6, endMs: 790 });
    const chat = mirror.span({ name: 'chat gpt-4o', parent: step, startMs: 10, endMs: 200, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.output_tokens': 8 } });
    const call = mirror.span({ name: 'execute_tool send_email', parent: step, startMs: 210, endMs: 700, attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': 'call_1' } });
    // A sub-agent run inside the tool's body is a run of its own.
    const sub = t.run({ traceId: r.traceId, parent: tool, stamp: false, name: 'invoke_agent helper', startMs: 300, endMs: 400 });
    const a = await analyzeTraces(t);
    const rows = Object.fromEntries((await a.table('report_spans')).map((x) => [x['span_id'], [x['role'], x['run_id']]]));
    const runs = await a.total('runs');
    a.close();
    const own = r.spanId;
    for (const id of [mirror.spanId, step, chat, call]) expect(rows[id], id).toEqual(['other', own]);
    expect(rows[sub.spanId]).toEqual(['run', sub.spanId]);
    expect(runs).toMatchObject({ runs: 2, cancelled_runs: 1 });
  });

  it("an MCP server's spans read before its client's: a run of their own, then, once the client's arrive, the far half of the client's call (issue 48)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-assign-'));
    const store = await Store.open(':memory:');
    try {
      const t = traces();
      const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
      r.cancelRequest(100);
      const call = r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 105, result: 'cancelled', attrs: { 'mcp.method.name': 'tools/call', 'afterstop.mcp.side': 'client' } });
      const server = r.mcpServer({ tool: 'send_email', parent: call, startMs: 60, endMs: 400, handler: 'finished_after_cancel', commitCount: 1 });
      server.cancelReceived(110);
      const mail = server.commit(300);
      // The server's process exported first (its own file): the client's spans are not in the store yet.
      const lines = t.toLines();
      const fromServer = (l: string) => l.includes('"mcp-server"');
      fs.writeFileSync(path.join(dir, 'a.jsonl'), `${lines.filter(fromServer).join('\n')}\n`);
      await ingest(store, [dir]);
      const facts = () => storedRows(store, `SELECT span_id, role, run_id, tool_call_id FROM {stored} WHERE span_id IN ('${server.spanId}', '${mail}') ORDER BY start_ns`);
      const ghosts = () => sqlRows(store, 'SELECT run_id, tool_call_id, span_id FROM ghost_commit_facts');
      expect(await facts()).toEqual([
        { span_id: server.spanId, role: 'run', run_id: server.spanId, tool_call_id: 'mcp:7' },
        { span_id: mail, role: 'marker', run_id: server.spanId, tool_call_id: 'mcp:7' },
      ]);
      expect(await ghosts()).toEqual([{ run_id: server.spanId, tool_call_id: 'mcp:7', span_id: mail }]);
      fs.writeFileSync(path.join(dir, 'b.jsonl'), `${lines.filter((l) => !fromServer(l)).join('\n')}\n`);
      await ingest(store, [dir]);
      expect(await facts()).toEqual([
        { span_id: server.spanId, role: 'mcp_server', run_id: r.spanId, tool_call_id: 'c1' },
        { span_id: mail, role: 'marker', run_id: r.spanId, tool_call_id: 'c1' },
      ]);
      // One run, one ghost: the server's run is gone with its facts.
      expect(await sqlRows(store, 'SELECT run_id FROM run_facts')).toEqual([{ run_id: r.spanId }]);
      expect(await ghosts()).toEqual([{ run_id: r.spanId, tool_call_id: 'c1', span_id: mail }]);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a trace that grows is assigned again: a foreign span that was its run is not once an invoke_agent span arrives', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-assign-'));
    const store = await Store.open(':memory:');
    try {
      const t = traces();
      const root = t.run({ name: 'POST /chat', stamp: false, startMs: 0, endMs: 900, attrs: { 'http.method': 'POST' } });
      const stream = root.span({ name: 'ai.streamText', startMs: 10, endMs: 800, attrs: { 'ai.operationId': 'ai.streamText', 'ai.response.finishReason': 'stop', 'ai.usage.outputTokens': 5 } });
      const step = root.span({ name: 'ai.streamText.doStream', parent: stream, startMs: 20, endMs: 700 });
      fs.copyFileSync(t.write(), path.join(dir, 'a.jsonl'));
      await ingest(store, [dir]);
      const facts = () => storedRows(store, 'SELECT span_id, role, run_id FROM {stored} ORDER BY start_ns');
      // Below an HTTP root that is not agent work, its agent-like child is the run.
      expect(await facts()).toEqual([
        { span_id: root.spanId, role: 'other', run_id: null },
        { span_id: stream, role: 'run', run_id: stream },
        { span_id: step, role: 'model', run_id: stream },
      ]);
      const agent = root.span({ name: 'invoke_agent helper', startMs: 5, endMs: 850, attrs: { 'gen_ai.operation.name': 'invoke_agent' } });
      fs.writeFileSync(path.join(dir, 'b.jsonl'), fs.readFileSync(t.write()));
      await ingest(store, [dir]);
      // Now the trace has a run span: everything outside it belongs to the trace's first run.
      expect(await facts()).toEqual([
        { span_id: root.spanId, role: 'other', run_id: agent },
        { span_id: agent, role: 'run', run_id: agent },
        { span_id: stream, role: 'other', run_id: agent },
        { span_id: step, role: 'model', run_id: agent },
      ]);
      expect(await sqlRows(store, 'SELECT run_id FROM run_facts')).toEqual([{ run_id: agent }]);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
