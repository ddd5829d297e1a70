import { terminalLine } from './render/text-table.js';

/**
 * Secrets never reach stderr: what afterstop prints about a server (its URL, its error, what its client
 * library logs) goes through here. A URL's password, a credential-looking query parameter, an HTTP
 * credential header or token are masked as `***`; a server's body is cut and shown as one line.
 */

const MASK = '***';

/** Query parameters whose value is a credential. */
const SECRET_PARAM = String.raw`(?:password|passwd|pwd|secret|token|access_token|api[-_]?key|key|auth)`;
/** Header (or field) names whose value is a credential, as a server may echo them. */
const SECRET_FIELD = String.raw`(?:password|passwd|secret|access_token|api[-_]key|authorization|proxy-authorization|cookie|set-cookie|x-clickhouse-key|x-api-key|x-auth-token)`;

const USERINFO = /(\/\/[^\s/:@]*:)[^\s/@]*@/g;
const QUERY_SECRET = new RegExp(String.raw`([?&;]${SECRET_PARAM}=)[^&\s#"']*`, 'gi');
/** `Authorization: Basic …`, `x-clickhouse-key: …`, `"password": "…"`, `password=…` in a server's echo of a request. */
const HEADER_SECRET = new RegExp(String.raw`(\b${SECRET_FIELD}\b["']?\s*[:=]\s*["']?)[^\r\n"',;&]*`, 'gi');
const SCHEME_TOKEN = /\b(Basic|Bearer|Digest|Negotiate)\s+[A-Za-z0-9+/=._~-]{4,}/g;

/** `text` with every credential it carries masked (a URL's password, credential parameters, headers and tokens). */
export function redactSecrets(text: string): string {
  return text.replace(USERINFO, `$1${MASK}@`).replace(QUERY_SECRET, `$1${MASK}`).replace(HEADER_SECRET, `$1${MASK}`).replace(SCHEME_TOKEN, `$1 ${MASK}`);
}

/** A URL as afterstop prints it: its password and credential parameters masked (a URL it cannot parse is masked as text). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const secretParams = [...parsed.searchParams.keys()].filter((key) => new RegExp(`^${SECRET_PARAM}$`, 'i').test(key));
    // As given when there is nothing to mask (URL's own spelling would add a slash the user did not write).
    if (parsed.password === '' && secretParams.length === 0) return redactSecrets(url);
    if (parsed.password !== '') parsed.password = MASK;
    for (const key of secretParams) parsed.searchParams.set(key, MASK);
    return redactSecrets(parsed.toString());
  } catch {
    return redactSecrets(url);
  }
}

/** What a server said, as afterstop prints it: credentials masked, one line, at most `maxChars` characters. */
export const MAX_SERVER_TEXT = 300;
export function serverText(text: string, maxChars = MAX_SERVER_TEXT): string {
  const line = terminalLine(redactSecrets(text)).trim();
  const chars = [...line];
  return chars.length <= maxChars ? line : `${chars.slice(0, maxChars - 1).join('')}… (${chars.length - maxChars + 1} more characters not shown)`;
}
