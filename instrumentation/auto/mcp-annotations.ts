import { effectOfToolAnnotations, type ToolEffect } from '../adapter-api.js';

/** At most this many tools remembered per client (a server that lists more is not telling them apart for us). */
export const MAX_TOOLS_PER_CLIENT = 512;

/** The effect classes of the tools each client was told of, by client (weakly: a client let go is forgotten). */
const byClient = new WeakMap<object, Map<string, ToolEffect>>();

/** A `tools/list` answer a client got: its tools' effect classes, remembered for its `tools/call` requests. Never throws. */
export function rememberTools(client: unknown, result: unknown): void {
  try {
    if (client === null || typeof client !== 'object' || result === null || typeof result !== 'object') return;
    const tools = (result as { tools?: unknown }).tools;
    if (!Array.isArray(tools)) return;
    let known = byClient.get(client);
    if (known === undefined) byClient.set(client, (known = new Map()));
    for (const tool of tools as unknown[]) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') continue;
      if (!known.has(name) && known.size >= MAX_TOOLS_PER_CLIENT) continue;
      known.set(name, effectOfToolAnnotations((tool as { annotations?: unknown }).annotations));
    }
  } catch {
    // A hostile answer: nothing remembered.
  }
}

/** The effect class of `name` as `client`'s server listed it; undefined when it was never listed. */
export function rememberedEffect(client: unknown, name: string): ToolEffect | undefined {
  return client !== null && typeof client === 'object' ? byClient.get(client)?.get(name) : undefined;
}
