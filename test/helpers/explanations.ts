import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { explain } from '../../analyzer/explain.js';
import type { Explanation } from '../../analyzer/types.js';
import { traces } from './trace-builder.js';

/** The escape character, as trace content may carry it. */
export const ESC = '\u001b';

/**
 * Two explanations the renderers' tests draw: the golden report's finding 1
 * (the ghost email, with its failed next run), and a run whose names carry
 * terminal escapes, a bidi override and Markdown fences.
 */
export async function explanations(): Promise<{ ghost: Explanation; hostile: Explanation }> {
  const golden = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
  const goldenFiles = fs
    .readdirSync(golden)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => golden + f);
  const ghost = await explain({ target: { finding: 1 }, inputs: goldenFiles, db: ':memory:' });
  const t = traces();
  const r = t.run({ service: `svc${ESC}[31m`, conversation: '```', startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.tool({ name: `rm -rf ${ESC}]0;pwned\u0007 \u202eevil`, callId: 'x', startMs: 50, effect: 'irreversible' });
  r.tool({ name: 'wait`\n```', callId: 'y', startMs: 60, endMs: 800, effect: 'read' });
  const hostile = await explain({ target: { id: r.spanId }, inputs: [t.write()], db: ':memory:' });
  return { ghost, hostile };
}
