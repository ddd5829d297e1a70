import { describe, expect, it } from 'vitest';
import { DirectiveError, inputTokensFor, parseDirectives, planResponse } from '../../simulator/script.js';

function counter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

describe('script directives', () => {
  it('parses tools (with nested JSON), tokens, delay, ttft and steps', () => {
    const d = parseDirectives('x [[tool:a {"s":"]] {","n":[[1]]}]] [[tokens:7]] [[delay:12]] [[ttft:30]] [[step]] [[tool:b]]');
    expect(d.steps).toEqual([[{ name: 'a', argumentsJson: '{"s":"]] {","n":[[1]]}', input: { s: ']] {', n: [[1]] } }], [{ name: 'b', argumentsJson: '{}', input: {} }]]);
    expect(d).toMatchObject({ tokens: 7, delayMs: 12, ttftMs: 30 });
  });

  it('ignores ordinary brackets and rejects malformed directives', () => {
    expect(parseDirectives('an [[array]] of text').steps).toEqual([[]]);
    expect(() => parseDirectives('[[tool:a {"x":]]')).toThrow(DirectiveError);
    expect(() => parseDirectives('[[tokens:lots]]')).toThrow(DirectiveError);
    expect(() => parseDirectives('[[tool:a [1,2]]]')).toThrow(DirectiveError);
  });

  it('plans tool calls on the user turn and text after a tool round', () => {
    const text = '[[tool:send {"to":"bob"}]] [[tokens:3]]';
    const tools = planResponse({ directiveText: text, toolRounds: 0 }, {}, counter('call_'));
    expect(tools.kind).toBe('tool_calls');
    expect(tools.toolCalls.map((c) => c.id)).toEqual(['call_1']);
    expect(tools.pieces[0]).toEqual({ kind: 'tool-start', call: 0 });
    const args = tools.pieces.flatMap((p) => (p.kind === 'tool-args' ? [p.fragment] : []));
    expect(args.join('')).toBe('{"to":"bob"}');
    const answer = planResponse({ directiveText: text, toolRounds: 1 }, {}, counter('call_'));
    expect(answer.kind).toBe('text');
    expect(answer.text).toBe('tok1 tok2 tok3 ');
  });

  it('defaults to 20 tokens, 25 ms per token and ttft = token delay', () => {
    const plan = planResponse({ directiveText: 'hi', toolRounds: 0 }, {}, counter('c'));
    expect(plan.pieces).toHaveLength(20);
    expect(plan).toMatchObject({ tokenDelayMs: 25, firstTokenDelayMs: 25, truncated: false });
    expect(planResponse({ directiveText: '[[delay:7]]', toolRounds: 0 }, { tokenDelayMs: 3 }, counter('c')).firstTokenDelayMs).toBe(7);
    expect(planResponse({ directiveText: '', toolRounds: 0 }, { tokenDelayMs: 3, firstTokenDelayMs: 50 }, counter('c'))).toMatchObject({
      tokenDelayMs: 3,
      firstTokenDelayMs: 50,
    });
  });

  it('truncates text at maxTokens', () => {
    const plan = planResponse({ directiveText: '[[tokens:10]]', toolRounds: 0, maxTokens: 4 }, {}, counter('c'));
    expect(plan.pieces).toHaveLength(4);
    expect(plan.truncated).toBe(true);
  });

  it('counts input tokens as ceil(chars / 4)', () => {
    expect([0, 1, 4, 5, 8].map(inputTokensFor)).toEqual([0, 1, 1, 2, 2]);
  });
});
