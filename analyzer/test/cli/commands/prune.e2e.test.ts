import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakReport } from '../../../index.js';
import { cliPath } from '../../../../test/helpers/cli.js';

/** `afterstop prune --older-than AGE`, the built CLI: retention by whole UTC days. */
const cli = cliPath;
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const DAY_NS = 86_400_000_000_000n;
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-prune-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('afterstop prune', () => {
  it('removes the days older than the age, and the runs on them; the later days stay, and the trace files read are not read again', () => {
    const traces = path.join(dir, 'traces');
    fs.mkdirSync(traces);
    const g2 = fs.readFileSync(`${golden}g2-ghost-email.jsonl`, 'utf8');
    fs.writeFileSync(path.join(traces, 'old.jsonl'), g2);
    // The same traces 10 days later, as other traces.
    const later = g2.replace(/"(startTimeUnixNano|endTimeUnixNano|timeUnixNano)":"(\d+)"/g, (_m, k: string, v: string) => `"${k}":"${BigInt(v) + 10n * DAY_NS}"`).replace(/"0000([0-9a-f]{12}|[0-9a-f]{28})"/g, '"1000$1"');
    fs.writeFileSync(path.join(traces, 'later.jsonl'), later);
    const db = path.join(dir, 'store');
    expect(run(['leak-report', traces, '--db', db]).status).toBe(0);
    // The golden traces start on 2026-09-21: keep from 2026-09-26, an age in hours that ends near its noon
    // (in days from the traces' start, the day it ended on depended on the time of day the test ran).
    const ageHours = Math.floor((Date.now() - Date.UTC(2026, 8, 26, 12)) / 3_600_000);
    const out = run(['prune', '--older-than', `${ageHours}h`, '--db', db]);
    expect(out.status).toBe(0);
    const summary = JSON.parse(out.stdout) as { days: string[]; files: number; spans: number; runs: number };
    expect(summary).toMatchObject({ days: ['2026-09-21'], files: 1, runs: 2 });
    expect(summary.spans).toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(db, 'spans'))).toEqual(['day=2026-10-01']);
    const after = JSON.parse(run(['leak-report', traces, '--db', db]).stdout) as LeakReport;
    expect(after.input.files_read).toBe(0);
    expect(after.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
    // The old file grows (a collector appends): it is read again from its start, and its pruned days stay out, said as skipped.
    fs.appendFileSync(path.join(traces, 'old.jsonl'), '\n');
    const grown = run(['leak-report', traces, '--db', db]);
    const regrown = JSON.parse(grown.stdout) as LeakReport;
    expect(regrown.input.files_read).toBe(1);
    expect(regrown.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
    expect(regrown.input.skipped).toEqual([{ file: path.join(traces, 'old.jsonl'), line: 0, reason: expect.stringMatching(/^\d+ span\(s\) before 2026-09-26, a day the store's retention removed/) }]);
  });

  it('exit 2 for an age that is not one, or a store that is not there', () => {
    const bad = run(['prune', '--older-than', '2026-01-01', '--db', path.join(dir, 'store')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('not an age');
    const none = run(['prune', '--older-than', '30d', '--db', path.join(dir, 'nothing')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no store there');
  });
});
