/** What the HTTP watchers (commit-detection.ts, request-span.ts) read of a request or its answer, as undici and node:http give it. */

export const methodOf = (method: unknown): string => (typeof method === 'string' ? method.toUpperCase() : 'GET');

/** The value of header `name` (lower case) among a request's headers: undici's `[k, v, ...]` list or its older `k: v\r\n` text. */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
  } else if (typeof headers === 'string') {
    for (const line of headers.split('\r\n')) {
      const at = line.indexOf(':');
      if (at > 0 && line.slice(0, at).trim().toLowerCase() === name) return line.slice(at + 1).trim();
    }
  }
  return undefined;
}

/** Content types whose body is a stream of messages: the answer is whole only when the body ends. */
const STREAMED_TYPES: ReadonlySet<string> = new Set(['text/event-stream', 'application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/json-seq', 'application/stream+json']);

/** Whether a response's content type (`text/event-stream; charset=utf-8`) streams. */
export function streamedContentType(contentType: unknown): boolean {
  if (typeof contentType !== 'string') return false;
  return STREAMED_TYPES.has(contentType.split(';', 1)[0]!.trim().toLowerCase());
}

/** The header naming an MCP Streamable HTTP request (MCP 2025-03-26 and later): its answer may stream whatever its type. */
export const MCP_PROTOCOL_HEADER = 'mcp-protocol-version';

export function hostOf(origin: unknown): string | undefined {
  try {
    return typeof origin === 'string' ? new URL(origin).hostname : origin instanceof URL ? origin.hostname : undefined;
  } catch {
    return undefined;
  }
}
