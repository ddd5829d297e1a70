import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveGuard } from '../../guard/config.js';

/**
 * The guard's settings: one it cannot take is said on stderr (whether or not an OpenTelemetry diagnostics
 * logger is set), never silently ignored; a credential header never becomes the idempotency key's header,
 * since the key a request carries is recorded in the traces.
 */
let stderr: string[];
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

describe('resolveGuard', () => {
  it.each(['0', '-5', 'NaN', 'abc'])('AFTERSTOP_GUARD_DEADLINE_MS=%s: no deadline, and a line on stderr says so', (raw) => {
    expect(resolveGuard({}, { AFTERSTOP_GUARD_DEADLINE_MS: raw }).deadlineMs).toBeUndefined();
    expect(stderr.join('')).toContain(`afterstop: guard: ignoring AFTERSTOP_GUARD_DEADLINE_MS=${raw}: not a positive number of milliseconds`);
  });

  it('a valid deadline: taken, nothing said', () => {
    expect(resolveGuard({}, { AFTERSTOP_GUARD_DEADLINE_MS: '120000' }).deadlineMs).toBe(120000);
    expect(stderr).toEqual([]);
  });

  it.each(['X-Api-Key', 'Authorization', 'Cookie', 'X-Auth-Token', 'X-Session-Id'])('AFTERSTOP_GUARD_IDEMPOTENCY_HEADER=%s carries credentials: refused, said, and the default header used', (header) => {
    const keys = resolveGuard({}, { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: 'api.example.com', AFTERSTOP_GUARD_IDEMPOTENCY_HEADER: header }).keys;
    expect(keys?.header).toBe('idempotency-key');
    expect(stderr.join('')).toContain(`afterstop: guard: "${header}" carries credentials`);
  });

  it("a header of the app's own naming that carries no credentials is taken", () => {
    const keys = resolveGuard({ idempotencyKeys: { hosts: ['api.example.com'], header: 'X-Idempotency-Key' } }, {}).keys;
    expect(keys?.header).toBe('x-idempotency-key');
    expect(stderr).toEqual([]);
  });

  it('the keys’ secret: from code, else AFTERSTOP_GUARD_IDEMPOTENCY_SECRET (also beside hosts from code), else one random for the process; the scope: auto unless conversation', () => {
    const env = { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: 'h', AFTERSTOP_GUARD_IDEMPOTENCY_SECRET: 'env-secret-0123456789', AFTERSTOP_GUARD_IDEMPOTENCY_SCOPE: 'conversation' };
    expect(resolveGuard({}, env).keys).toMatchObject({ secret: Buffer.from('env-secret-0123456789'), scope: 'conversation' });
    expect(resolveGuard({ idempotencyKeys: { hosts: ['h'] } }, env).keys).toMatchObject({ secret: Buffer.from('env-secret-0123456789'), scope: 'auto' });
    expect(resolveGuard({ idempotencyKeys: { hosts: ['h'], secret: 'code-secret-0123456789', scope: 'conversation' } }, env).keys).toMatchObject({ secret: Buffer.from('code-secret-0123456789'), scope: 'conversation' });
    const random = resolveGuard({ idempotencyKeys: { hosts: ['h'] } }, {}).keys!.secret;
    expect(random.length).toBe(32);
    expect(resolveGuard({}, { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: 'h' }).keys!.secret).toBe(random);
    expect(stderr).toEqual([]);
  });

  it('a secret under 16 characters is said on stderr (and used); a scope it does not know is said, and auto used', () => {
    expect(resolveGuard({}, { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: 'h', AFTERSTOP_GUARD_IDEMPOTENCY_SECRET: 'short' }).keys!.secret).toEqual(Buffer.from('short'));
    expect(resolveGuard({}, { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: 'h', AFTERSTOP_GUARD_IDEMPOTENCY_SCOPE: 'global' }).keys!.scope).toBe('auto');
    expect(stderr.join('')).toContain('afterstop: guard: the idempotency secret is shorter than 16 characters');
    expect(stderr.join('')).toContain('afterstop: guard: ignoring idempotency scope "global"');
  });
});
