import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchLargeInputs } from '../../bench/large-inputs.js';

// `npm run bench` reports the figures at 10,000 and 100,000 calls, 20,000 and 200,000 files, a 150 MiB line;
// this checks, at small sizes, that each command ran to its end (exit 0), measured, and left nothing behind.
describe('large inputs benchmark', () => {
  it('measures explain, many files and a long line, each in a child process, and removes what it wrote', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-large-'));
    try {
      const result = benchLargeInputs(dir, { BENCH_EXPLAIN_CALLS: '200,400', BENCH_MANY_FILES: '30,60', BENCH_LONG_LINE_MB: '70' });
      expect(result.explain.map((e) => e.calls)).toEqual([200, 400]);
      expect(result.manyFiles.map((m) => m.files)).toEqual([30, 60]);
      expect(result.oneFile.spans).toBe(60);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'many-files-60-one.json'), 'utf8')).input).toMatchObject({ files: 1, spans_read: 60 });
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'many-files-60.json'), 'utf8')).input).toMatchObject({ files: 60, spans_read: 60 });
      // The timeline query at the largest size only.
      expect(result.explain.map((e) => e.queried !== undefined)).toEqual([false, true]);
      for (const m of [
        ...result.explain.flatMap((e) => [e.measured, e.ingested, ...(e.queried === undefined ? [] : [e.queried])]),
        ...result.manyFiles.map((m) => m.measured),
        result.oneFile.measured,
        result.longLine.measured,
      ]) {
        expect(m.status).toBe(0);
        expect(m.seconds).toBeGreaterThan(0);
        expect(m.peakRssMb).toBeGreaterThan(0);
      }
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'long-line-70.json'), 'utf8')) as { input: { skipped: { line: number; reason: string }[] } };
      expect(report.input.skipped).toEqual([expect.objectContaining({ line: 2, reason: expect.stringMatching(/^line too long: 73\.4 MB/) })]);
      const explained = fs.readFileSync(path.join(dir, 'long-run-400.html'), 'utf8');
      expect(explained).toContain('What the run did after Stop');
      // The run's timeline as `afterstop query` printed it: every tool call once.
      const timeline = JSON.parse(fs.readFileSync(path.join(dir, 'long-run-400-timeline.json'), 'utf8')) as { role: string; span_id: string }[];
      const tools = timeline.filter((r) => r.role === 'tool');
      expect(new Set(tools.map((t) => t.span_id)).size).toBe(400);
      expect(fs.readdirSync(dir).filter((f) => !f.endsWith('.json') && !f.endsWith('.html'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
