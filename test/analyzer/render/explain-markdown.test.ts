import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { explain } from '../../../analyzer/explain.js';
import { renderExplainMarkdown } from '../../../analyzer/render/explain-markdown.js';
import type { Explanation } from '../../../analyzer/types.js';
import { traces } from '../../helpers/trace-builder.js';

/** explain as Markdown for a ticket: the chart fenced so that no trace text closes it, the figures as a table. */
const golden = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
const goldenFiles = fs.readdirSync(golden).filter((f) => f.endsWith('.jsonl')).map((f) => golden + f);
const ESC = '\u001b';

let ghost: Explanation;
let hostile: Explanation;
beforeAll(async () => {
  ghost = await explain({ target: { finding: 1 }, inputs: goldenFiles, db: ':memory:' });
  const t = traces();
  const r = t.run({ service: `svc${ESC}[31m`, conversation: '```', startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.cancelRequest(100);
  r.tool({ name: `rm -rf ${ESC}]0;pwned\u0007 \u202eevil`, callId: 'x', startMs: 50, effect: 'irreversible' });
  r.tool({ name: 'wait`\n```', callId: 'y', startMs: 60, endMs: 800, effect: 'read' });
  hostile = await explain({ target: { id: r.spanId }, inputs: [t.write()], db: ':memory:' });
});

const lines = (text: string): string[] => text.split('\n');

describe('renderExplainMarkdown', () => {
  it('the chart in a fence no trace text can close, the figures as a table', () => {
    const md = renderExplainMarkdown(hostile);
    const fence = /^(`{3,})text$/m.exec(md)![1]!;
    expect(fence.length).toBeGreaterThan(3);
    const body = md.slice(md.indexOf(`${fence}text`) + fence.length + 4, md.indexOf(`\n${fence}\n`));
    expect(body).not.toContain(fence);
    expect(md).toContain('| figure | value |');
    expect(md).toMatch(/\| cancel depth \| 2 of 4: /);
    const g = renderExplainMarkdown(ghost);
    expect(g).toContain('## Finding: ghost\\_commit (severity 1)');
    expect(g).toMatch(/\+300 ms .*send_email COMMIT \(irreversible\)  ← ghost/);
  });
});
