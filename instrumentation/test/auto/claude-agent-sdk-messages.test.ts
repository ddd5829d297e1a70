import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeMessages } from '../../auto/claude-agent-sdk-messages.js';
import { startRun } from '../../index.js';
import { captureTraces, named, only, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The Claude Agent SDK's messages as spans (auto/claude-agent-sdk-messages.ts), fed with messages a real
 * `query()` yielded (test/fixtures/claude-agent-sdk/messages-bash.json: Claude Code 0.3.337 against the
 * simulator, partial messages on; the model asks for Bash `echo hi`, then answers in 3 tokens).
 */
type Json = Record<string, unknown>;
const RECORDED = JSON.parse(fs.readFileSync(new URL('../../../test/fixtures/claude-agent-sdk/messages-bash.json', import.meta.url), 'utf8')) as Json[];

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(() => capture.close());

const tool = (id: string, name: string, input: Json = {}): Json => ({
  type: 'assistant',
  message: { id: `msg_${id}`, model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id, name, input }], usage: { input_tokens: 10, output_tokens: 4 } },
  parent_tool_use_id: null,
});
const result = (id: string, content: string, extra: Json = {}, isError = false): Json => ({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
  parent_tool_use_id: null,
  ...extra,
});

describe('Claude Agent SDK messages → spans', () => {
  it('a recorded query: two model calls from the partial messages (tokens, stop reasons), the Bash call delivered, its effect out of sight, the cost on the run', async () => {
    const run = startRun({ framework: 'claude-agent-sdk' });
    const messages = new ClaudeMessages(run, true, undefined);
    for (const m of RECORDED) messages.message(m);
    messages.iterationEnded();
    const spans = await capture.spans(run.id);
    const models = named(spans, 'chat claude-sonnet-4-5');
    expect(models.map((s) => s.attributes['gen_ai.usage.output_tokens'])).toEqual([12, 3]);
    expect(models.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_use'], ['end_turn']]);
    const bash = only(spans, 'execute_tool Bash');
    expect(bash.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'toolu_1', 'afterstop.tool.result': 'delivered', 'afterstop.tool.effect': 'unknown', 'afterstop.tool.out_of_sight': 'subprocess' });
    // The tool ran between the two model calls.
    expect(bash.startNs).toBeGreaterThanOrEqual(models[0]!.startNs);
    expect(bash.endNs).toBeLessThanOrEqual(models[1]!.startNs);
    const cost = (RECORDED.find((m) => m['type'] === 'result') as Json)['total_cost_usd'];
    expect(typeof cost).toBe('number');
    expect(only(spans, 'invoke_agent').attributes).toMatchObject({ 'afterstop.run.cost_usd': cost, 'afterstop.run.outcome': 'completed' });
  });

  it('read-only built-ins are reads, MCP tools out of sight as mcp; an interrupted result is cancelled; after a Stop a call without a result is cancelled; a turn without partial messages is one model call with its usage', async () => {
    const controller = new AbortController();
    const run = startRun({ framework: 'claude-agent-sdk', signal: controller.signal });
    const messages = new ClaudeMessages(run, true, controller.signal);
    messages.message(tool('toolu_r', 'Read', { file_path: 'a' }));
    messages.message(result('toolu_r', 'text'));
    messages.message(tool('toolu_m', 'mcp__mail__send_email'));
    messages.message(result('toolu_m', '[Request interrupted by user for tool use]', {}, true));
    messages.message(tool('toolu_b', 'Bash', { command: 'sleep 9' }));
    messages.message(result('toolu_b', 'Exit code 1', {}, true));
    messages.message(tool('toolu_x', 'Bash', { command: 'sleep 9' }));
    controller.abort();
    messages.iterationEnded(new Error('Claude Code process aborted by user'));
    const spans = await capture.spans(run.id);
    const byId = Object.fromEntries(
      named(spans, 'execute_tool Read')
        .concat(named(spans, 'execute_tool mcp__mail__send_email'), named(spans, 'execute_tool Bash'))
        .map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes]),
    );
    expect(byId['toolu_r']).toMatchObject({ 'afterstop.tool.effect': 'read', 'afterstop.tool.result': 'delivered' });
    expect(byId['toolu_r']?.['afterstop.tool.out_of_sight']).toBeUndefined();
    expect(byId['toolu_m']).toMatchObject({ 'afterstop.tool.out_of_sight': 'mcp', 'afterstop.tool.result': 'cancelled' });
    // A failure the tool reported went into the conversation: delivered, with its error.
    expect(byId['toolu_b']).toMatchObject({ 'afterstop.tool.result': 'delivered', 'error.type': 'ToolError' });
    expect(byId['toolu_x']).toMatchObject({ 'afterstop.tool.result': 'cancelled', 'afterstop.tool.out_of_sight': 'subprocess' });
    expect(named(spans, 'chat claude-sonnet-4-5').map((s) => s.attributes['gen_ai.usage.output_tokens'])).toEqual([4, 4, 4, 4]);
    // The SDK's plain "aborted" error after the app's abort is the Stop's end: acknowledged, cancelled.
    expect(named(spans, 'afterstop.cancel.ack')).toHaveLength(1);
    expect(only(spans, 'invoke_agent').attributes['afterstop.run.outcome']).toBe('cancelled');
  });

  it('a background command (run_in_background) goes on past its immediate result: ended by its task notification, or in flight at the Stop and cancelled', async () => {
    const controller = new AbortController();
    const run = startRun({ framework: 'claude-agent-sdk', signal: controller.signal });
    const messages = new ClaudeMessages(run, true, controller.signal);
    const started = (id: string): Json => ({ type: 'system', subtype: 'task_started', task_id: `t_${id}`, tool_use_id: id, is_backgrounded: true, task_type: 'local_bash' });
    for (const id of ['toolu_done', 'toolu_running']) {
      messages.message(tool(id, 'Bash', { command: 'sleep 1', run_in_background: true }));
      messages.message(started(id));
      messages.message(result(id, `Command running in background with ID: t_${id}.`));
    }
    messages.message({ type: 'system', subtype: 'task_notification', task_id: 't_toolu_done', tool_use_id: 'toolu_done', status: 'completed', summary: 'done' });
    let spans = await capture.spans(run.id);
    expect(named(spans, 'execute_tool Bash').map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['toolu_done']);
    controller.abort();
    messages.iterationEnded(new Error('Claude Code process aborted by user'));
    spans = await capture.spans(run.id);
    const stop = only(spans, 'afterstop.cancel.request');
    const running = named(spans, 'execute_tool Bash').find((s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_running')!;
    expect(running.attributes['afterstop.tool.result']).toBe('cancelled');
    expect(running.endNs).toBeGreaterThanOrEqual(stop.startNs);
  });

  it("a query joining the app's own run leaves it open", async () => {
    const run = startRun({});
    const messages = new ClaudeMessages(run, false, undefined);
    messages.message(tool('toolu_1', 'Bash'));
    messages.iterationEnded();
    const spans = await capture.spans(run.id);
    expect(only(spans, 'execute_tool Bash').attributes['afterstop.tool.result']).toBe('dropped');
    expect(named(spans, 'invoke_agent')).toHaveLength(0);
    run.end();
  });
});
