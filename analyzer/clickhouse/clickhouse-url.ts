import { InputError } from '../errors.js';
import { redactSecrets } from '../redact.js';

/**
 * The server and table the ClickHouse source reads, as the user names them
 * (`--clickhouse URL`, `--table`): checked and parsed without loading the
 * ClickHouse client, so that a command can refuse a bad URL before any engine loads.
 */

export interface ClickHouseTable {
  database: string;
  table: string;
}

/** `otel_traces` or `otel.otel_traces`: the exporter's defaults are database `otel`, table `otel_traces`. */
export function parseTable(name: string): ClickHouseTable {
  const [first, second] = name.split('.', 2);
  return second === undefined ? { database: 'otel', table: first ?? 'otel_traces' } : { database: first ?? 'otel', table: second };
}

/**
 * A ClickHouse URL as the client takes it, checked first: the user and password are given before the
 * host (`http://user:password@host:8123`, percent-encoded), not as URL parameters. An InputError otherwise,
 * which names the fault and never the password.
 */
export function checkClickHouseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError('--clickhouse: not a URL');
  }
  const credentialParams = [...parsed.searchParams.keys()].filter((k) => /^(user|username|password)$/i.test(k));
  if (credentialParams.length > 0) {
    throw new InputError(`--clickhouse ${redactSecrets(parsed.origin)}: give the user and password before the host (user:password@ in the URL, percent-encoded), not as URL parameters (${credentialParams.join(', ')})`);
  }
  for (const [what, value] of [
    ['user', parsed.username],
    ['password', parsed.password],
  ] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      throw new InputError(`--clickhouse ${parsed.origin}: the URL's ${what} is not valid percent-encoding (% must be followed by two hex digits; write a % as %25)`);
    }
  }
}
