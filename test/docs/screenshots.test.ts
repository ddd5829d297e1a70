import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cellsKey, parseAnsi, wrapCells } from '../../docs-tools/ansi-cells.js';
import { MANIFEST, manifestEntry, README, readmeSample, ROOT, SAMPLE_REPORT, sampleBlock, sampleExcerpt, SCREENSHOTS_DIR, SHOTS, sourceText, type ManifestEntry } from '../../docs-tools/screenshot-sources.js';

/**
 * docs/screenshots/: each image's text is what its command writes today (the commands run here as
 * `npm run screenshots` runs them, without tmux or Chromium, and their sha256 is compared with the
 * manifest's), and each image is a real PNG of a plausible size.
 */
const STALE = 'docs/screenshots are stale: run npm run screenshots';
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, MANIFEST), 'utf8')) as { screenshots: ManifestEntry[] };

/** A PNG's width and height from its IHDR chunk, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'the PNG signature').toBe(true);
  expect(bytes.subarray(12, 16).toString('latin1'), 'the first chunk').toBe('IHDR');
  expect(bytes.subarray(bytes.length - 8, bytes.length - 4).toString('latin1'), 'the last chunk').toBe('IEND');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the screenshots in docs/screenshots', () => {
  // The three commands at once: each is a CLI run over the sample traces.
  let texts: string[];
  beforeAll(async () => {
    texts = await Promise.all(SHOTS.map((shot) => sourceText(shot)));
  });

  it('the manifest lists each screenshot once, in order', () => {
    expect(manifest.screenshots.map((e) => e.png)).toEqual(SHOTS.map((s) => s.png));
  });

  it.each(SHOTS.map((s, i) => [s.png, s, i] as const))('%s shows what its command writes today', (_png, shot, i) => {
    const entry = manifest.screenshots.find((e) => e.png === shot.png);
    const expected = manifestEntry(shot, texts[i]!);
    if (JSON.stringify(entry) !== JSON.stringify(expected)) expect.fail(`${STALE} (${shot.png}: ${JSON.stringify(entry)} is not ${JSON.stringify(expected)})`);
  });

  it.each(SHOTS.map((s) => [s.png, s] as const))('%s is a PNG of a plausible size', (_png, shot) => {
    const bytes = fs.readFileSync(path.join(ROOT, SCREENSHOTS_DIR, shot.png));
    const { width, height } = pngSize(bytes);
    expect(bytes.length).toBeGreaterThan(20_000);
    expect(bytes.length).toBeLessThan(3_000_000);
    expect(width).toBeGreaterThanOrEqual(600);
    expect(width).toBeLessThanOrEqual(1600);
    expect(height).toBeGreaterThanOrEqual(300);
    expect(height).toBeLessThanOrEqual(2400);
  });
});

describe("the README's sample report", () => {
  it('is the terminal report over the sample traces, as a pipe writes it today, through its first kind of finding', async () => {
    const report = await sourceText(SAMPLE_REPORT);
    const block = readmeSample(fs.readFileSync(path.join(ROOT, README), 'utf8'));
    expect(block, 'the README has its sample-report markers').toBeDefined();
    if (block !== sampleBlock(report)) expect.fail(`${STALE} (the README's sample report is not what the command writes today)`);
    // The first screen: the verdict before any figure, the figures that need attention, one kind of finding with its remedy.
    const lines = sampleExcerpt(report).split('\n');
    expect(lines[0]).toBe('afterstop leak report');
    expect(lines[1]).toMatch(/after the user pressed Stop/);
    expect(lines.indexOf('Needs attention')).toBeGreaterThan(1);
    expect(lines.filter((l) => /^ {2}\S+ ×\d/.test(l))).toHaveLength(1);
  });

  it('is cut before the second kind of finding', () => {
    const report = ['t', 'Findings by kind (2 of 2 listed)', '  a ×1  fix a', '    1 row', '  b ×1  fix b', '    2 row', '', 'Ghost commits by tool'].join('\n');
    expect(sampleExcerpt(report)).toBe(['t', 'Findings by kind (2 of 2 listed)', '  a ×1  fix a', '    1 row', '  …'].join('\n'));
  });
});

describe("the terminal's cells, as the screenshot script compares them", () => {
  it('two encodings of one screen are the same cells; another colour or character is not', () => {
    const program = '\u001b[1mStop\u001b[22m \u001b[31m█\u001b[39m\u001b[31m█\u001b[39m  \nnext';
    const tmux = '\u001b[1mStop\u001b[0m \u001b[31m██\u001b[39m\nnext';
    expect(cellsKey(parseAnsi(tmux))).toBe(cellsKey(parseAnsi(program)));
    expect(cellsKey(parseAnsi(tmux.replace('31m', '32m')))).not.toBe(cellsKey(parseAnsi(program)));
    expect(cellsKey(parseAnsi(tmux.replace('██', '█▒')))).not.toBe(cellsKey(parseAnsi(program)));
    expect(cellsKey(parseAnsi('\u001b[1mStop\n\u001b[0mnext'))).not.toBe(cellsKey(parseAnsi('\u001b[1mStop\nnext')));
  });

  it('a line longer than the terminal goes on at the start of the next row, as tmux shows it', () => {
    expect(cellsKey(wrapCells(parseAnsi('abcdefgh\nxy'), 3))).toBe(cellsKey(parseAnsi('abc\ndef\ngh\nxy')));
    expect(cellsKey(wrapCells(parseAnsi('abc'), 3))).toBe(cellsKey(parseAnsi('abc')));
  });
});
