import { describe, expect, it } from 'vitest';
import { CancelledError, isAbortError } from '../index.js';
import { CAUSE_DEPTH } from '../errors.js';

/** isAbortError (errors.ts): an abort is one wherever it sits in an error's cause chain, within a bounded depth. */
describe('isAbortError', () => {
  /** An error wrapping `cause`, as an MCP client's MCPClientError "Request was aborted" wraps the signal's reason. */
  const wrapped = (cause: unknown, name = 'AI_MCPClientError'): Error => Object.assign(new Error('Request was aborted', { cause }), { name });

  it('an abort itself, and one in the cause chain: a DOMException AbortError, the signal’s own reason, a CancelledError', () => {
    const controller = new AbortController();
    controller.abort('the user pressed Stop');
    expect(isAbortError(new DOMException('aborted', 'AbortError'))).toBe(true);
    expect(isAbortError(wrapped(new DOMException('aborted', 'AbortError')))).toBe(true);
    expect(isAbortError(wrapped(wrapped(controller.signal.reason)), controller.signal)).toBe(true);
    expect(isAbortError(wrapped(new CancelledError()))).toBe(true);
  });

  it('not an abort: another failure, a reason of a signal that did not abort, a chain deeper than the bound, a cycle, a hostile getter', () => {
    expect(isAbortError(wrapped(new Error('ECONNRESET')))).toBe(false);
    expect(isAbortError(wrapped('the user pressed Stop'), new AbortController().signal)).toBe(false);
    let deep: unknown = new DOMException('aborted', 'AbortError');
    for (let i = 0; i <= CAUSE_DEPTH; i++) deep = wrapped(deep);
    expect(isAbortError(deep)).toBe(false);
    const cycle = wrapped(undefined);
    (cycle as { cause?: unknown }).cause = wrapped(cycle);
    expect(isAbortError(cycle)).toBe(false);
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'cause', {
      get: () => {
        throw new Error('no');
      },
    });
    expect(isAbortError(hostile)).toBe(false);
  });
});
