import { beforeAll, describe, expect, it } from 'vitest';
import { renderExplainMarkdown } from '../../render/explain-markdown.js';
import type { Explanation } from '../../types.js';
import { explanations } from '../../../test/helpers/explanations.js';

/** explain as Markdown for a ticket: the chart fenced so that no trace text closes it, the figures as a table. */
let ghost: Explanation;
let hostile: Explanation;
beforeAll(async () => {
  ({ ghost, hostile } = await explanations());
});

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
