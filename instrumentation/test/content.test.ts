import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capUtf8, contentValue, resetContentCapture, TRUNCATED } from '../content.js';
import { captureContent, startRun } from '../index.js';
import { captureTraces, only, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * Trace content is recorded only when the app opts in; then the redaction
 * hook runs first and the size cap after it. What the pipeline writes is
 * read back from the trace files.
 */
const CONTENT_KEYS = ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages'];
const RUNS = Number(process.env['PROPERTY_RUNS'] ?? 300);

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces();
});
afterAll(async () => {
  await capture.close();
});
afterEach(() => resetContentCapture({}));

/** A run with one tool call and one model call carrying content; the spans it wrote. */
async function recorded(): Promise<Record<string, unknown>[]> {
  const run = startRun({ agentName: 'content' });
  const value = await run.tool({ name: 'send_email', arguments: { to: 'alice@example.com', body: 'hello' } }, async () => ({ sent: true, to: 'alice@example.com' }));
  expect(value).toEqual({ sent: true, to: 'alice@example.com' });
  const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o', systemInstructions: 'You mail alice@example.com.', inputMessages: [{ role: 'user', content: 'mail alice@example.com' }] });
  model.end({ outputText: 'Sent to alice@example.com.' });
  run.end();
  return (await capture.spans(run.id)).map((s) => s.attributes);
}

describe('content capture', () => {
  it('off by default: no tool arguments, results or messages are recorded, anywhere', async () => {
    const spans = await recorded();
    expect(spans.flatMap((a) => CONTENT_KEYS.filter((k) => k in a))).toEqual([]);
    expect(JSON.stringify(spans)).not.toContain('alice@example.com');
  });

  it('on: the four GenAI attributes, the redaction hook run first on each', async () => {
    const seen: string[] = [];
    captureContent({
      enabled: true,
      redact: (text, info) => {
        seen.push(`${info.kind} ${info.name}`);
        return text.replaceAll('alice@example.com', '<email>');
      },
    });
    const spans = await recorded();
    const tool = spans.find((a) => a['gen_ai.operation.name'] === 'execute_tool')!;
    expect(JSON.parse(String(tool['gen_ai.tool.call.arguments']))).toEqual({ to: '<email>', body: 'hello' });
    expect(JSON.parse(String(tool['gen_ai.tool.call.result']))).toEqual({ sent: true, to: '<email>' });
    const model = spans.find((a) => a['gen_ai.operation.name'] === 'chat')!;
    expect(JSON.parse(String(model['gen_ai.input.messages']))).toEqual([{ role: 'user', content: 'mail <email>' }]);
    expect(model['gen_ai.system_instructions']).toBe('You mail <email>.');
    expect(JSON.parse(String(model['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Sent to <email>.' }] }]);
    expect(JSON.stringify(spans)).not.toContain('alice@example.com');
    expect(seen.sort()).toEqual(['input.messages gpt-4o', 'output.messages gpt-4o', 'system.instructions gpt-4o', 'tool.arguments send_email', 'tool.result send_email']);
  });

  it('a hook that throws, or answers anything but text, records nothing; the app’s results pass through', async () => {
    for (const redact of [
      () => {
        throw new Error('redactor down');
      },
      () => undefined,
      () => 42,
    ]) {
      captureContent({ enabled: true, redact });
      const spans = await recorded();
      expect(spans.flatMap((a) => CONTENT_KEYS.filter((k) => k in a))).toEqual([]);
    }
  });

  it('the size cap: a megabyte of arguments is recorded cut, on a character boundary, marked', async () => {
    captureContent({ enabled: true, maxBytes: 100 });
    const run = startRun({ agentName: 'big' });
    await run.tool({ name: 'upload', arguments: 'é'.repeat(1_000_000) }, () => 'ok');
    run.end();
    const tool = only(await capture.spans(run.id), 'execute_tool upload');
    const args = String(tool.attributes['gen_ai.tool.call.arguments']);
    expect(Buffer.byteLength(args, 'utf8')).toBeLessThanOrEqual(100);
    expect(args.endsWith(TRUNCATED)).toBe(true);
    expect(args.slice(0, -TRUNCATED.length)).toMatch(/^é+$/);
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('ok');
  });

  it('any value is serialised without throwing for its shape: a cycle, a BigInt, binary data, deep nesting; a getter that throws records nothing', () => {
    captureContent({ enabled: true });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = cycle;
    expect(contentValue(cycle, 'tool.arguments')).toBe('{"a":1,"self":"[circular]"}');
    const shared = { x: 1 };
    expect(contentValue([shared, shared], 'tool.arguments')).toBe('[{"x":1},{"x":1}]');
    expect(contentValue({ n: 10n, f: () => 1, u: undefined, d: new Date(0), list: [undefined, NaN] }, 'tool.arguments')).toBe('{"n":"10","d":"1970-01-01T00:00:00.000Z","list":[null,null]}');
    expect(contentValue({ file: new Uint8Array(10_000_000) }, 'tool.arguments')).toBe('{"file":"[binary 10000000 bytes]"}');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(contentValue(deep, 'tool.arguments')).toBe(`${'['.repeat(32)}"[too deep]"${']'.repeat(32)}`);
    expect(
      contentValue(
        {
          get boom() {
            throw new Error('no');
          },
        },
        'tool.arguments',
      ),
    ).toBeUndefined();
  });

  it('a huge value costs no more than the budget: serialisation stops at four times the cap, and the value is marked cut', () => {
    captureContent({ enabled: true, maxBytes: 64 });
    const calls: number[] = [];
    const big = Array.from({ length: 100_000 }, (_, i) => ({ toJSON: () => (calls.push(i), { i }) }));
    const text = contentValue(big, 'tool.arguments')!;
    expect(calls.length).toBeLessThan(64 * 4);
    expect(text.endsWith(TRUNCATED)).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64);
    // Cut by the budget, then shortened by the hook to fit: still marked as cut.
    captureContent({ enabled: true, maxBytes: 64, redact: (t) => t.slice(0, 10) });
    expect(contentValue('x'.repeat(1000), 'tool.result')).toBe(`${'x'.repeat(10)}${TRUNCATED}`);
  });

  it('a streamed answer longer than the budget is recorded cut and marked, after the hook', async () => {
    captureContent({ enabled: true, maxBytes: 100, redact: (t) => t.replaceAll('secret', '******') });
    const run = startRun({ agentName: 'long' });
    const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    model.end({ outputText: 'secret '.repeat(20), outputCut: true });
    run.end();
    const output = String(only(await capture.spans(run.id), 'chat gpt-4o').attributes['gen_ai.output.messages']);
    expect(output.endsWith(TRUNCATED)).toBe(true);
    expect(output).not.toContain('secret');
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(100);
  });

  it('captureContent never throws, whatever it is given; a hook that is not a function records nothing', () => {
    for (const bad of [undefined, null, 42, 'yes', { maxBytes: 'lots' }, { enabled: 'true' }]) expect(() => captureContent(bad as never)).not.toThrow();
    captureContent({ enabled: true, redact: 'not a function' as never });
    expect(contentValue('alice@example.com', 'tool.arguments')).toBeUndefined();
    captureContent({ redact: undefined });
    expect(contentValue('x', 'tool.arguments')).toBe('x');
  });

  it('the environment switches it on (the GenAI instrumentations’ variable, or afterstop’s) and sets the cap', () => {
    resetContentCapture({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', AFTERSTOP_CONTENT_MAX_BYTES: '40' });
    expect(contentValue('x'.repeat(50), 'tool.result')).toBe(`${'x'.repeat(40 - Buffer.byteLength(TRUNCATED))}${TRUNCATED}`);
    // A cap too small to hold the mark is refused: the default stays.
    resetContentCapture({ AFTERSTOP_CAPTURE_CONTENT: 'true', AFTERSTOP_CONTENT_MAX_BYTES: '8' });
    expect(contentValue('x'.repeat(5000), 'tool.result')).toHaveLength(4096 - Buffer.byteLength(TRUNCATED) + TRUNCATED.length);
    resetContentCapture({ AFTERSTOP_CAPTURE_CONTENT: 'TRUE' });
    expect(contentValue('x', 'tool.result')).toBe('x');
    resetContentCapture({ AFTERSTOP_CAPTURE_CONTENT: 'yes please' });
    expect(contentValue('x', 'tool.result')).toBeUndefined();
  });

  it('capUtf8, for any text and cap: at most the cap in UTF-8 bytes, a prefix of the text, no character cut in two', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 32, max: 300 }), (text, max) => {
        const capped = capUtf8(text, max);
        const bytes = Buffer.byteLength(text, 'utf8');
        // Text that fits is kept as it is; longer text is cut to the cap and marked.
        if (bytes <= max) return void expect(capped).toBe(text);
        expect(Buffer.byteLength(capped, 'utf8')).toBeLessThanOrEqual(max);
        expect(capped.endsWith(TRUNCATED)).toBe(true);
        const head = capped.slice(0, -TRUNCATED.length);
        expect(text.startsWith(head)).toBe(true);
        // As much as fits: at most one character (up to 4 bytes, a grapheme's last code point) short of the room.
        expect(Buffer.byteLength(head, 'utf8')).toBeGreaterThan(max - Buffer.byteLength(TRUNCATED) - 4);
        // A whole prefix: re-encoding it changes nothing (no lone surrogate, no replacement character).
        expect(Buffer.from(head, 'utf8').toString('utf8')).toBe(head);
      }),
      { numRuns: RUNS },
    );
  });
});
