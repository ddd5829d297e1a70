import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_INTERNAL, EXIT_STORAGE, EXIT_USAGE } from '../../cli/exit-codes.js';
import { failed, redactCredentials } from '../../cli/main.js';
import { InputError } from '../../errors.js';
import { distModule } from '../../../test/helpers/child.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * The program's exit codes mean one thing each: 1 is only ever a broken budget. Bad input and usage are
 * exit 2 with one line naming what; an internal error is 70 with its stack; a closed stdout is no error.
 */
const CLI = fileURLToPath(distModule('analyzer/cli/main.js'));
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-exit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const afterstop = (args: string[], options: { shell?: string } = {}) =>
  options.shell !== undefined ? spawnSync('bash', ['-c', options.shell], { encoding: 'utf8', cwd: dir }) : spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir });
const oneLine = (stderr: string): void => {
  expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe('exit codes', () => {
  it('a corrupt or truncated catalog, or a folder in its place: exit 2, one line naming the store', () => {
    const good = path.join(dir, 'good');
    expect(afterstop(['ingest', `${golden}g2-ghost-email.jsonl`, '--db', good]).status).toBe(0);
    const catalog = path.join(good, 'catalog.duckdb');
    for (const [name, damage] of [
      ['truncated', () => fs.truncateSync(catalog, 1000)],
      ['garbage', () => fs.writeFileSync(catalog, 'not a database at all '.repeat(1000))],
      [
        'a folder',
        () => {
          fs.rmSync(catalog);
          fs.mkdirSync(catalog);
        },
      ],
    ] as const) {
      damage();
      const out = afterstop(['leak-report', `${golden}g2-ghost-email.jsonl`, '--db', good, '--format', 'json']);
      expect(out.status, name).toBe(EXIT_USAGE);
      expect(out.stderr, name).toContain(`${good}: cannot open the store`);
      oneLine(out.stderr);
    }
  });

  it('values the user gave that a query or a time cannot take: exit 2, one line', () => {
    const db = path.join(dir, 'store');
    expect(afterstop(['ingest', `${golden}g2-ghost-email.jsonl`, '--db', db]).status).toBe(0);
    const negative = afterstop(['query', 'findings', '--db', db, '--param', 'limit=-1']);
    expect(negative.status).toBe(EXIT_USAGE);
    expect(negative.stderr).toMatch(/^afterstop: findings: .*--param/);
    oneLine(negative.stderr);
    const since = afterstop(['leak-report', `${golden}g2-ghost-email.jsonl`, '--db', ':memory:', '--since', '99999999999999999999d']);
    expect(since.status).toBe(EXIT_USAGE);
    expect(since.stderr).toMatch(/--since/);
  });

  it('a FIFO or a device as input or as --prices is refused at once, naming it (it would block or never end)', () => {
    const fifo = path.join(dir, 'traces.fifo');
    spawnSync('mkfifo', [fifo]);
    for (const args of [
      ['leak-report', fifo],
      ['leak-report', '/dev/zero'],
      ['leak-report', `${golden}g2-ghost-email.jsonl`, '--prices', fifo],
      ['leak-report', `${golden}g2-ghost-email.jsonl`, '--prices', '/dev/zero'],
    ]) {
      const out = spawnSync(process.execPath, [CLI, ...args, '--db', ':memory:'], { encoding: 'utf8', cwd: dir, timeout: 15_000 });
      expect(out.error, args.join(' ')).toBeUndefined();
      expect(out.status, args.join(' ')).toBe(EXIT_USAGE);
      expect(out.stderr).toMatch(/not a regular file/);
      oneLine(out.stderr);
    }
  });

  it('an invalid --clickhouse URL is named without its password', () => {
    const out = afterstop(['leak-report', '--clickhouse', 'http://reader:s3cret-pa55@[bad', '--table', 'otel.otel_traces']);
    expect(out.status).toBe(EXIT_USAGE);
    expect(out.stderr).not.toContain('s3cret-pa55');
    expect(out.stderr).toContain('reader:***@');
    expect(redactCredentials('see https://u:p@h:8123/x and http://h/y')).toBe('see https://u:***@h:8123/x and http://h/y');
  });

  it('stdout closed early (| head): the output stops, no stack, the exit code of the command', () => {
    // Far more than a pipe holds (64 KiB), so that the write meets the closed pipe.
    const t = traces();
    for (let i = 0; i < 3000; i++) {
      const r = t.run({ startMs: i * 10, endMs: i * 10 + 9, outcome: 'cancelled' });
      r.cancelRequest(i * 10 + 1);
      r.tool({ name: `send_email_${i}`, callId: `c${i}`, startMs: i * 10, endMs: i * 10 + 5, effect: 'irreversible' });
      r.commit({ callId: `c${i}`, atMs: i * 10 + 4 });
    }
    const big = t.write('many-ghosts.jsonl');
    const out = afterstop([], { shell: `node ${JSON.stringify(CLI)} leak-report ${JSON.stringify(big)} --db :memory: --format json --no-progress | head -c 10 > /dev/null; echo "exit \${PIPESTATUS[0]}" >&2` });
    expect(out.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(out.stderr).toMatch(/exit 0/);
  });

  it('stdout the machine cannot write (> /dev/full): exit 74, one line, never the exit 1 of a broken budget', () => {
    const db = path.join(dir, 'full-stdout');
    expect(afterstop(['ingest', `${golden}g2-ghost-email.jsonl`, '--db', db]).status).toBe(0);
    for (const command of ['leak-report', 'query runs']) {
      const args = command === 'leak-report' ? `leak-report ${JSON.stringify(`${golden}g2-ghost-email.jsonl`)} --db :memory: --format json --no-progress` : `query runs --db ${JSON.stringify(db)} --format json`;
      const out = afterstop([], { shell: `node ${JSON.stringify(CLI)} ${args} > /dev/full; echo "exit $?" >&2` });
      expect(out.stderr, command).toMatch(/^afterstop: could not write the output to stdout \(ENOSPC[^\n]*\nexit 74\n$/);
    }
  });

  it('a store the machine cannot write (past the file size limit, as a full disk): exit 74, one line; nothing marked read, so the next run reads it all', () => {
    const t = traces();
    for (let i = 0; i < 3000; i++) {
      const r = t.run({ service: `svc-${i % 7}`, startMs: i, endMs: i + 900, outcome: 'cancelled' });
      r.cancelRequest(i + 100);
      r.tool({ name: 'send_email', callId: `c${i}`, startMs: i + 50, endMs: i + 400, effect: 'irreversible' });
    }
    const file = t.write('many.jsonl');
    const store = path.join(dir, 'limited');
    // Writes past 1 MiB fail with EFBIG (SIGXFSZ ignored), as writes to a full disk fail with ENOSPC.
    const limited = afterstop([], {
      shell: `trap '' XFSZ; ulimit -f 1024; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} leak-report ${JSON.stringify(file)} --db ${JSON.stringify(store)} --format json`,
    });
    expect(limited.status, limited.stderr).toBe(EXIT_STORAGE);
    expect(limited.stderr).toMatch(new RegExp(`afterstop: ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: could not write to the store or a temporary file \\(.*File too large\\); nothing was marked read`));
    expect(limited.stderr).not.toMatch(/\n\s+at /);
    expect(limited.stdout).toBe('');
    const again = afterstop(['leak-report', file, '--db', store, '--format', 'json']);
    expect(again.status, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as { input: { spans_read: number; skipped_count: number }; totals: { runs: number } };
    expect(report.input).toMatchObject({ spans_read: 3000 * 4, skipped_count: 0 });
    expect(report.totals.runs).toBe(3000);
  });

  it('an error that is not the user’s: its own exit code, with the stack; an InputError: exit 2', () => {
    const stderr = process.stderr.write;
    const said: string[] = [];
    process.stderr.write = ((text: string) => (said.push(text), true)) as typeof process.stderr.write;
    try {
      expect(failed(new TypeError('x is not a function'))).toBe(EXIT_INTERNAL);
      expect(failed(new InputError('/data/in.jsonl: not there'))).toBe(EXIT_USAGE);
      // DuckDB's own words past its memory limit, in any statement: the limit is the user's setting.
      expect(failed(new Error('Out of Memory Error: failed to allocate data of size 16.0 MiB (283.4 MiB/286.1 MiB used)\n\nPossible solutions:'))).toBe(EXIT_USAGE);
    } finally {
      process.stderr.write = stderr;
    }
    expect(said[0]).toMatch(/^afterstop: internal error \(please report it\): TypeError: x is not a function\n\s+at /);
    expect(said[1]).toBe('afterstop: /data/in.jsonl: not there\n');
    expect(said[2]).toBe('afterstop: DuckDB ran out of memory (Out of Memory Error: failed to allocate data of size 16.0 MiB (283.4 MiB/286.1 MiB used)); raise AFTERSTOP_MEMORY_LIMIT\n');
  });
});

describe('afterstop (usage)', () => {
  it("prints the analyzer package's version, and exits 2 with help on stderr for no or an unknown command", () => {
    const version = afterstop(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version);
    const none = afterstop([]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('Usage: afterstop');
    expect(none.stdout).toBe('');
    const bogus = afterstop(['bogus']);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain("unknown command 'bogus'");
  });

  it("has no demo command: the demo is the test kit's program (npm start), not the analyzer's", () => {
    const demo = afterstop(['demo']);
    expect(demo.status).toBe(2);
    expect(demo.stderr).toContain("unknown command 'demo'");
  });
});
