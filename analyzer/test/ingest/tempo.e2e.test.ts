import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { tempoBlockOf } from '../../ingest/tempo.js';
import type { LeakReport } from '../../types.js';
import { writeTempoBlock } from '../../../test/helpers/tempo-block.js';
import { cliPath } from '../../../test/helpers/cli.js';

/**
 * Grafana Tempo's Parquet blocks read where they lie: blocks written by the
 * test from the golden traces following Tempo's schema (test/helpers/tempo-block.ts),
 * with the leak model's attributes in dedicated columns, must give the report
 * the OTLP/JSON files give, figure for figure.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;
const cases = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-tempo-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Everything but where the spans came from. */
const figures = (r: LeakReport): Omit<LeakReport, 'input'> => {
  const { input: _input, ...rest } = r;
  return rest;
};

// Attributes the leak model reads, moved out of Attrs as a Tempo operator might configure them.
const DEDICATED = ['gen_ai.operation.name', 'afterstop.run.id', 'gen_ai.tool.call.id', 'afterstop.tool.result'];

describe('Tempo blocks', () => {
  for (const version of ['vParquet4', 'vParquet5'] as const) {
    it(`${version}: a block of each golden trace gives the figures its OTLP/JSON gives`, async () => {
      const root = path.join(tmp, version);
      for (const file of cases) await writeTempoBlock(root, [`${golden}${file}`], { version, dedicatedSpan: DEDICATED, dedicatedResource: ['deployment.environment'] });
      const fromJson = await analyze({ inputs: [golden], db: ':memory:', pricesFile: prices });
      const fromTempo = await analyze({ inputs: [root], db: ':memory:', pricesFile: prices });
      expect(fromTempo.input).toMatchObject({ files: cases.length, files_read: cases.length, spans_read: fromJson.input.spans_read, skipped: [] });
      expect(figures(fromTempo)).toEqual(figures(fromJson));
      expect(fromTempo.totals).toMatchObject({ runs: 9, ghost_commits: 1, replay_duplicates: 1 });
    });
  }

  it('a block without dedicated columns, and one whose attributes are all in Attrs, read alike', async () => {
    const root = path.join(tmp, 'plain');
    await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet5' });
    await writeTempoBlock(root, [`${golden}g5-replay.jsonl`], { version: 'vParquet4' });
    const fromJson = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`, `${golden}g5-replay.jsonl`], db: ':memory:', pricesFile: prices });
    const fromTempo = await analyze({ inputs: [root], db: ':memory:', pricesFile: prices });
    expect(figures(fromTempo)).toEqual(figures(fromJson));
  });

  it('says what it does not read, and reads the rest: a compacted block, an older format, a Parquet file that is no block, a broken one', async () => {
    const root = path.join(tmp, 'mixed');
    const good = await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet4' });
    const compacted = await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet4' });
    fs.renameSync(path.join(compacted, 'meta.json'), path.join(compacted, 'meta.compacted.json'));
    const old = await writeTempoBlock(root, [`${golden}g5-replay.jsonl`], { version: 'vParquet4' });
    const meta = JSON.parse(fs.readFileSync(path.join(old, 'meta.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(old, 'meta.json'), JSON.stringify({ ...meta, format: 'vParquet3' }));
    const broken = await writeTempoBlock(root, [`${golden}g3-repaired.jsonl`], { version: 'vParquet4' });
    fs.writeFileSync(path.join(broken, 'data.parquet'), 'PAR1 not really');
    const stray = path.join(tmp, 'stray.parquet');
    fs.copyFileSync(path.join(good, 'data.parquet'), stray);

    const report = await analyze({ inputs: [root, stray], db: ':memory:', pricesFile: prices });
    const reasons = Object.fromEntries(report.input.skipped.map((s) => [s.file, s.reason]));
    expect(reasons[path.join(compacted, 'data.parquet')]).toMatch(/compacted into another/);
    expect(reasons[path.join(old, 'data.parquet')]).toMatch(/format "vParquet3" is not read/);
    expect(reasons[path.join(broken, 'data.parquet')]).toMatch(/DuckDB could not read this Tempo vParquet4 block/);
    expect(reasons[stray]).toMatch(/no Tempo meta\.json beside it/);
    expect(report.input.skipped).toHaveLength(4);
    expect(report.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
  });

  it('a meta.json that is null, has null columns, is a FIFO or is huge: that block named, the good block beside it read, nothing blocks', async () => {
    const root = path.join(tmp, 'hostile-meta');
    await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet4' });
    const nulled = await writeTempoBlock(root, [`${golden}g5-replay.jsonl`], { version: 'vParquet4' });
    fs.writeFileSync(path.join(nulled, 'meta.json'), 'null');
    const columns = await writeTempoBlock(root, [`${golden}g3-repaired.jsonl`], { version: 'vParquet4' });
    const meta = JSON.parse(fs.readFileSync(path.join(columns, 'meta.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(columns, 'meta.json'), JSON.stringify({ ...meta, dedicatedColumns: [null, 7, { s: 'span', n: 'afterstop.run.id' }] }));
    const fifo = await writeTempoBlock(root, [`${golden}g4-loop-continues.jsonl`], { version: 'vParquet4' });
    fs.rmSync(path.join(fifo, 'meta.json'));
    spawnSync('mkfifo', [path.join(fifo, 'meta.json')]);
    const huge = await writeTempoBlock(root, [`${golden}g1-stream-in-flight.jsonl`], { version: 'vParquet4' });
    fs.writeFileSync(path.join(huge, 'meta.json'), `{"format": "vParquet4", "pad": "${'x'.repeat(2 * 1024 * 1024)}"}`);
    const report = await analyze({ inputs: [root], db: ':memory:', pricesFile: prices });
    const reasons = Object.fromEntries(report.input.skipped.map((k) => [k.file, k.reason]));
    expect(reasons[path.join(nulled, 'data.parquet')]).toBe('its meta.json is not a JSON object');
    expect(reasons[path.join(fifo, 'data.parquet')]).toMatch(/its meta\.json not a regular file/);
    expect(reasons[path.join(huge, 'data.parquet')]).toMatch(/more than the 1048576 such a file may have/);
    // The block with odd columns is read (the odd entries ignored), and so is the good one.
    expect(reasons[path.join(columns, 'data.parquet')]).toBeUndefined();
    expect(report.input.skipped).toHaveLength(3);
    expect(report.totals.runs).toBeGreaterThanOrEqual(2);
  });

  it('afterstop leak-report over a Tempo folder, as a nightly job runs it: the report of the traces, a skipped block on stderr', async () => {
    const root = path.join(tmp, 'cli');
    await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet4', dedicatedSpan: DEDICATED });
    const old = await writeTempoBlock(root, [`${golden}g5-replay.jsonl`], { version: 'vParquet4' });
    fs.writeFileSync(path.join(old, 'meta.json'), JSON.stringify({ format: 'vParquet2' }));
    const cli = cliPath;
    const out = spawnSync(process.execPath, [cli, 'leak-report', root, '--db', ':memory:', '--prices', prices], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout) as LeakReport;
    expect(report.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
    expect(report.input.skipped).toEqual([{ file: path.join(old, 'data.parquet'), line: 0, reason: 'Tempo block format "vParquet2" is not read (vParquet4 and vParquet5 are)' }]);
    expect(out.stderr).toContain('vParquet2');
  });

  it('a block still being written (its meta.json not there yet) is looked at again next time, and read once it is whole', async () => {
    const root = path.join(tmp, 'writing');
    const block = await writeTempoBlock(root, [`${golden}g2-ghost-email.jsonl`], { version: 'vParquet4' });
    const meta = fs.readFileSync(path.join(block, 'meta.json'), 'utf8');
    fs.rmSync(path.join(block, 'meta.json'));
    const db = path.join(tmp, 'writing-store');
    const first = await analyze({ inputs: [root], db, pricesFile: prices });
    expect(first.totals.runs).toBe(0);
    expect(first.input.skipped[0]?.reason).toMatch(/still being written/);
    fs.writeFileSync(path.join(block, 'meta.json'), meta);
    const second = await analyze({ inputs: [root], db, pricesFile: prices });
    expect(second.input).toMatchObject({ files_read: 1, skipped: [] });
    expect(second.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
  });

  it('maps dedicated columns as Tempo does: in meta.json order, a count per scope and type, resource ones apart', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'meta-'));
    const data = path.join(dir, 'data.parquet');
    const write = (meta: unknown): void => fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
    write({ format: 'vParquet4', dedicatedColumns: [{ s: 'resource', n: 'ip' }, { n: 'a' }, { s: 'span', n: 'b' }, { n: 'c', t: 'string' }] });
    expect(tempoBlockOf(data)).toEqual({ version: 4, spanStrings: ['a', 'b', 'c', null, null, null, null, null, null, null], spanInts: [] });
    write({ format: 'vParquet5', dedicatedColumns: [{ n: 'a' }, { n: 'n', t: 'int' }, { s: 'event', n: 'e' }, { n: 'b', o: ['array'] }] });
    expect(tempoBlockOf(data)).toEqual({ version: 5, spanStrings: ['a', 'b'], spanInts: ['n'] });
    write({ format: 'vParquet4', dedicatedColumns: Array.from({ length: 12 }, (_, i) => ({ n: `k${i}` })) });
    expect((tempoBlockOf(data) as { spanStrings: string[] }).spanStrings).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`));
    fs.writeFileSync(path.join(dir, 'meta.json'), '{not json');
    expect(tempoBlockOf(data)).toMatchObject({ notRead: expect.stringMatching(/meta\.json is not JSON/) });
  });
});
