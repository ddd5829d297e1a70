import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { sdkApps, type AppRun } from '../../../test/helpers/sdk-app.js';
import { distModule } from '../../../test/helpers/child.js';

/**
 * Content under `node --import afterstop/register`, with the real AI SDK and
 * openai client: nothing of the conversation in the trace files unless the
 * app opts in; when it does (here with a preload of its own that sets a
 * redaction hook, as an app would), the hook has run on everything recorded.
 */
const { app, runApp } = sdkApps();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-content-'));
// The afterstop the app's register loads (the packed copy in the e2e tier): one instance for both.
const index = fileURLToPath(distModule('instrumentation/index.js'));
const preload = path.join(dir, 'redact.mjs');
fs.writeFileSync(
  preload,
  `import { captureContent } from ${JSON.stringify(index)};
captureContent({ enabled: true, maxBytes: 2000, redact: (text) => text.replaceAll(/[\\w.]+@[\\w.]+/g, '<email>') });
`,
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every byte the app's traces hold, as text. */
const traceText = (r: AppRun): string =>
  fs
    .readdirSync(r.traces)
    .map((f) => fs.readFileSync(path.join(r.traces, f), 'utf8'))
    .join('\n');
const CONTENT = ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.input.messages', 'gen_ai.output.messages'];

describe('content capture under afterstop/register', () => {
  it('by default: the e-mail address of the tool call and the prompt appear nowhere in the trace files', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'complete', { PROVIDER: 'openai' });
    expect(r.effects).toHaveLength(1);
    const text = traceText(r);
    expect(text).not.toContain('alice@example.com');
    expect(text).not.toContain('E-mail the customer');
    for (const key of CONTENT) expect(text).not.toContain(key);
  });

  it('opted in with a redaction hook: tool arguments and results, model input and output recorded, the address redacted everywhere', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'complete', { PROVIDER: 'openai', NODE_OPTIONS: `--import ${preload}` });
    expect(r.out).toMatchObject({ toolPartStates: ['output-available'], plainText: 7 });
    const text = traceText(r);
    expect(text).not.toContain('alice@example.com');
    const spans = (await readTraces(r.traces)).spans;
    const tool = spans.find((s) => s.name === 'execute_tool send_email')!;
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ to: '<email>' });
    expect(tool.attributes['gen_ai.tool.call.result']).toEqual(expect.stringContaining('effect_id'));
    const models = spans.filter((s) => s.name.startsWith('chat '));
    expect(models.length).toBeGreaterThan(1);
    expect(models.some((s) => String(s.attributes['gen_ai.input.messages']).includes('E-mail the customer'))).toBe(true);
    const outputs = models
      .map((s) => s.attributes['gen_ai.output.messages'])
      .filter((v) => v !== undefined)
      .map((v) => JSON.parse(String(v)) as { parts: { content: string }[] }[]);
    expect(outputs.some((o) => o[0]!.parts[0]!.content.trim().split(/\s+/).length === 7)).toBe(true);
  });

  it('the openai client used directly: the request’s messages and the streamed answer, as far as it came before the Stop', async () => {
    const r = await runApp(app('openai-app.mjs'), 'signal', { NODE_OPTIONS: `--import ${preload}` });
    const [model] = (await readTraces(r.traces)).spans.filter((s) => s.name === 'chat gpt-4o');
    expect(JSON.parse(String(model!.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', content: 'Essay [[tokens:200]]' }]);
    const output = JSON.parse(String(model!.attributes['gen_ai.output.messages'])) as { parts: { content: string }[] }[];
    const words = output[0]!.parts[0]!.content.trim().split(/\s+/).length;
    expect(words).toBe(r.out['chunks']);
  });
});
