import { sayOnce } from '../safe.js';
import type { GuardOptions } from '../types.js';
import { defaultKeySettings, type KeyScope } from './idempotency-key.js';

/**
 * The guard's settings as they apply now: from `setup({ guard })` first, then
 * the `AFTERSTOP_GUARD_*` variables, else off. Read on every guarded request
 * and run start (a plain object: cheap).
 */
export interface ResolvedGuard {
  /** Which tools the commit fence holds (`all`, or the named ones), to which hosts (undefined: any); undefined: off. */
  fence: { all: boolean; tools: ReadonlySet<string>; hosts: HostMatcher | undefined } | undefined;
  /** Which hosts get idempotency keys, under which header (lower case), the HMAC secret and the scope; undefined: off. */
  keys: { header: string; hosts: HostMatcher; secret: Buffer; scope: KeyScope } | undefined;
  /** The runs' deadline; undefined: none. */
  deadlineMs: number | undefined;
}

export type HostMatcher = (host: string) => boolean;

type Env = Record<string, string | undefined>;

const OFF: ResolvedGuard = { fence: undefined, keys: undefined, deadlineMs: undefined };
export const DEFAULT_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** A header name as RFC 9110 allows it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * Headers that carry credentials: the guard records the key a request carries in its header, so such a header
 * would put the app's secret into the traces. Never the key's header.
 */
const CREDENTIAL_HEADER = /authori[sz]ation|cookie|api[-_]?key|token|secret|passw|session|credential/i;

/** A setting the guard cannot take: one line on stderr (once), whether or not a diagnostics logger is set. */
const warn = (message: string): void => sayOnce(`guard:${message}`, `guard: ${message}`);

const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `api.stripe.com`, `*.example.com` (its subdomains, not itself), `*` (every host); case-insensitive. */
export function hostMatcher(patterns: readonly string[]): HostMatcher {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  let any = false;
  for (const raw of patterns) {
    const p = String(raw).trim().toLowerCase().replace(/\.$/, '');
    if (p === '') continue;
    if (p === '*') any = true;
    else if (p.startsWith('*.')) suffixes.push(p.slice(1));
    else exact.add(p.replace(/^\[(.*)\]$/, '$1'));
  }
  if (any) return () => true;
  return (host) => {
    const h = host
      .toLowerCase()
      .replace(/\.$/, '')
      .replace(/^\[(.*)\]$/, '$1');
    return exact.has(h) || suffixes.some((s) => h.endsWith(s) && h.length > s.length);
  };
}

function fenceFrom(value: GuardOptions['fence'] | undefined, env: Env): ResolvedGuard['fence'] {
  let tools: string[] | 'all' | undefined;
  let hosts: readonly string[] | undefined;
  if (value === undefined) {
    const raw = env['AFTERSTOP_GUARD_FENCE']?.trim();
    if (raw === undefined || raw === '' || /^(false|0|off|no)$/i.test(raw)) return undefined;
    tools = /^(true|1|on|yes|all|\*)$/i.test(raw) ? 'all' : list(raw);
    const rawHosts = env['AFTERSTOP_GUARD_FENCE_HOSTS'];
    if (rawHosts !== undefined && rawHosts.trim() !== '') hosts = list(rawHosts);
  } else if (value === false) {
    return undefined;
  } else if (value === true) {
    tools = 'all';
  } else if (typeof value === 'string') {
    // From JavaScript, one name (or several, comma-separated) as a string.
    tools = list(value);
  } else if (Array.isArray(value)) {
    tools = value.map(String);
  } else if (typeof value === 'object' && value !== null) {
    const o = value as { tools?: readonly string[]; hosts?: readonly string[] };
    tools = Array.isArray(o.tools) ? o.tools.map(String) : 'all';
    if (Array.isArray(o.hosts)) hosts = o.hosts;
  }
  if (tools === undefined || (tools !== 'all' && tools.length === 0)) return undefined;
  return { all: tools === 'all', tools: new Set(tools === 'all' ? [] : tools), hosts: hosts !== undefined && hosts.length > 0 ? hostMatcher(hosts) : undefined };
}

function keysFrom(value: GuardOptions['idempotencyKeys'] | undefined, env: Env): ResolvedGuard['keys'] {
  let hosts: readonly string[];
  let header: string | undefined;
  let secret: string | undefined;
  let scope: string | undefined;
  if (value === undefined) {
    const raw = env['AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS'];
    if (raw === undefined || raw.trim() === '') return undefined;
    hosts = list(raw);
    header = env['AFTERSTOP_GUARD_IDEMPOTENCY_HEADER']?.trim() || undefined;
    scope = env['AFTERSTOP_GUARD_IDEMPOTENCY_SCOPE']?.trim() || undefined;
  } else if (value === false) {
    return undefined;
  } else {
    hosts = Array.isArray(value.hosts) ? value.hosts : [];
    header = value.header;
    secret = typeof value.secret === 'string' && value.secret !== '' ? value.secret : undefined;
    scope = value.scope;
  }
  // The secret from the environment in both cases (a secret is better kept out of code).
  secret ??= env['AFTERSTOP_GUARD_IDEMPOTENCY_SECRET'] || undefined;
  if (hosts.length === 0) return undefined;
  if (secret !== undefined && secret.length < 16) warn('the idempotency secret is shorter than 16 characters: a guessable secret lets anyone who reads the traces test guesses of what a key hides');
  if (scope !== undefined && scope !== 'auto' && scope !== 'conversation') {
    warn(`ignoring idempotency scope "${scope}": not auto or conversation (auto)`);
    scope = undefined;
  }
  if (header !== undefined && !HEADER_NAME.test(header)) {
    warn(`"${header}" is not a valid header name; using ${DEFAULT_IDEMPOTENCY_HEADER}`);
    header = undefined;
  } else if (header !== undefined && CREDENTIAL_HEADER.test(header)) {
    // Its value would be recorded as the key: the app's credential in the traces.
    warn(`"${header}" carries credentials, and the key a request carries is recorded; using ${DEFAULT_IDEMPOTENCY_HEADER}`);
    header = undefined;
  }
  return {
    header: (header ?? DEFAULT_IDEMPOTENCY_HEADER).toLowerCase(),
    hosts: hostMatcher(hosts),
    secret: secret !== undefined ? Buffer.from(secret, 'utf8') : defaultKeySettings.secret,
    scope: (scope as KeyScope | undefined) ?? 'auto',
  };
}

/** A deadline as a timer can wait for it: a positive number of ms, at most 2^31 - 1. */
export function deadlineFrom(value: number | false | undefined, name: string, shown: string = String(value)): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    warn(`ignoring ${name}=${shown}: not a positive number of milliseconds (no deadline)`);
    return undefined;
  }
  return Math.min(value, 2 ** 31 - 1);
}

export function resolveGuard(options: GuardOptions = {}, env: Env = process.env): ResolvedGuard {
  const rawDeadline = env['AFTERSTOP_GUARD_DEADLINE_MS']?.trim();
  return {
    fence: fenceFrom(options.fence, env),
    keys: keysFrom(options.idempotencyKeys, env),
    deadlineMs:
      options.deadlineMs !== undefined
        ? deadlineFrom(options.deadlineMs, 'deadlineMs')
        : rawDeadline === undefined || rawDeadline === ''
          ? undefined
          : deadlineFrom(Number(rawDeadline), 'AFTERSTOP_GUARD_DEADLINE_MS', rawDeadline),
  };
}

let current: ResolvedGuard = OFF;

/** The guard as it applies now. */
export const guard = (): ResolvedGuard => current;

/** The HTTP part (fence or keys) is on: tool calls carry what it needs in their context. */
export const httpGuardOn = (): boolean => current.fence !== undefined || current.keys !== undefined;

/** The settings from now on (guard/setup.ts). */
export function configureGuard(next: ResolvedGuard): void {
  current = next;
}
