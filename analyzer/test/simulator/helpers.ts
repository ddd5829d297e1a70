/** Shared helpers for the simulator tests (real HTTP, no mocks). */

export interface SseEvent {
  event: string | null;
  data: string;
}

/** Parses a complete SSE text into events (blank-line separated). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** Reads SSE events as they arrive; `onEvent` returning true stops reading (without aborting). */
export async function readSseUntil(res: Response, onEvent: (e: SseEvent, index: number) => boolean): Promise<SseEvent[]> {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const seen: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const [event] = parseSse(buffer.slice(0, cut + 2));
      buffer = buffer.slice(cut + 2);
      if (!event) continue;
      seen.push(event);
      if (onEvent(event, seen.length - 1)) return seen;
    }
  }
}

export async function waitFor(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    body: JSON.stringify(body),
  });
}

/** Swallows the AbortError of an aborted fetch/read. */
export async function ignoreAbort(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
}
