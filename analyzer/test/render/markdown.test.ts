import { describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { markdownCell, markdownTable, renderMarkdown } from '../../render/markdown.js';
import { traces } from '../../../test/helpers/trace-builder.js';

describe('the Markdown report', () => {
  it('escapes trace content: no table break, no markup, no link', () => {
    expect(markdownCell('a|b')).toBe('a\\|b');
    expect(markdownCell('<script>x</script>')).toBe('&lt;script&gt;x&lt;/script&gt;');
    expect(markdownCell('[click](http://x)')).toBe('\\[click\\](http://x)');
    expect(markdownCell('two\nlines')).toBe('two lines');
    expect(markdownTable(['a', 'b'], [['1', '2']])).toEqual(['| a | b |', '| --- | --- |', '| 1 | 2 |']);
  });

  it('gives the figures, ghost commits by tool and findings of a real report, hostile names escaped', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(120);
    r.tool({ name: '<img src=x onerror=alert(1)>|x', callId: 'c', startMs: 50, endMs: 300 });
    r.commit({ callId: 'c', atMs: 200 });
    const report = await analyze({ inputs: [t.write()], db: ':memory:' });
    const md = renderMarkdown(report);
    expect(md).toContain('| Ghost commits | 1 (1 irreversible or unknown, 0 inferred) |');
    expect(md).toContain('### Ghost commits by tool');
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;\\|x');
    expect(md).not.toContain('<img');
    expect(md).toContain(report.findings[0]!.trace_id);
  });
});
