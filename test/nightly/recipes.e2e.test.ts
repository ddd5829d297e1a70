import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERTS_FILE } from '../../analyzer/dashboards/src/alerts.js';
import { cliPath } from '../helpers/cli.js';
import { clickhouseHttp, type ClickHouseHttp } from '../helpers/clickhouse-http.js';
import { eventually, startPrometheusStack, type PrometheusStack } from '../helpers/prometheus.js';
import { cronJob, crontab, earliestStartNs, INSTALL, kubernetesObjects, recipe, root, shiftedTraces } from './recipes.js';

/**
 * docs/nightly.md's recipes run as the page shows them, over real traces (the golden traces, moved to the
 * last hours so that `--since 24h` holds them), a real store, the installed (packed) `afterstop` command, a
 * real Pushgateway and, for the GitHub workflow, ClickHouse's engine behind its HTTP interface. What is
 * substituted, and only that: the paths (the script's folders, where the script and the log are saved, the
 * volumes' mount paths) and the URLs (the Pushgateway's, ClickHouse's), each mapped to this test's; the
 * install line (`npm install --global @afterstop/analyzer@…`, checked by recipes.test.ts) is not run: the
 * packed command is on PATH in its place.
 */
const golden = path.join(root, 'test', 'fixtures', 'golden');
const DAY_NS = 86_400_000_000_000n;
const nowNs = BigInt(Date.now()) * 1_000_000n;
let dir: string;
let bin: string;
let stack: PrometheusStack;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-nightly-'));
  // The `afterstop` command as npm installs it, with the Node running the tests (the recipes need 22 or later).
  bin = path.join(dir, 'usr', 'local', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'afterstop'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} "$@"\n`, { mode: 0o755 });
  // Prometheus scrapes the Pushgateway and evaluates the shipped alerting rules, every second.
  stack = await startPrometheusStack(5, { ruleFiles: [path.join(root, 'analyzer', 'dashboards', ALERTS_FILE)] });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A golden trace file moved so that it starts `agoNs` before now, written into `folder`. */
function traceFile(folder: string, name: string, agoNs: bigint): string {
  const source = path.join(golden, `${name}.jsonl`);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${name}.jsonl`);
  fs.writeFileSync(file, shiftedTraces(source, nowNs - agoNs - earliestStartNs(source)));
  return file;
}

/** A command line through `shell`, in `cwd`, with exactly `env` (as cron and a container give it), waited on to its exit. */
function run(shell: string[], env: Record<string, string>, cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(shell[0]!, shell.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const bound = setTimeout(() => child.kill('SIGKILL'), 120_000);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.on('close', (status) => {
      clearTimeout(bound);
      resolve({ status, output });
    });
  });
}

/** The Pushgateway's samples of `metric` with `instance` (its text exposition). */
async function pushed(metric: string, instance: string): Promise<{ labels: string; value: number }[]> {
  const text = await (await fetch(`${stack.pushgateway}/metrics`)).text();
  return [...text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, 'gm'))].filter((m) => m[1]!.includes(`instance="${instance}"`)).map((m) => ({ labels: m[1]!, value: Number(m[2]) }));
}

/** The alert `name` of the nightly job's instance once Prometheus fires it (it has no `for`: at the first evaluation after the scrape). */
/** The alert `name` of `instance` once Prometheus fires it. */
const firing = (name: string, instance: string): Promise<{ labels: Record<string, string>; annotations: Record<string, string> }> =>
  eventually(`${name} firing`, async () => (await stack.alerts()).find((a) => a.labels['alertname'] === name && a.labels['instance'] === instance && a.state === 'firing'));

const today = (): string => new Date().toISOString().slice(0, 10);
/** The prune's JSON in a job's output (the one JSON object it prints). */
const pruneSummary = (output: string): { days: string[]; files: number; spans: number; runs: number } => JSON.parse(/^\{\n[\s\S]*?\n\}$/m.exec(output)![0]);

describe('the cron recipe, run as cron runs it', () => {
  const { env: cronEnv, command } = crontab();
  /** The crontab's paths moved under this test's folder: where the script is saved, PATH, the log. */
  const moved = (s: string): string => s.replaceAll('/usr/local/bin', path.join(dir, 'usr', 'local', 'bin')).replaceAll('/var/log/afterstop', path.join(dir, 'var', 'log', 'afterstop'));
  /** One night: the script saved where the page says, the crontab's command through sh, with the crontab's environment and the script's four paths and URL. */
  async function night(folders: { traces: string; store: string; reports: string }, pathPrefix?: string): Promise<{ status: number | null; log: string }> {
    fs.writeFileSync(path.join(bin, 'afterstop-nightly.sh'), recipe('script').text, { mode: 0o755 });
    const log = path.join(dir, 'var', 'log', 'afterstop', 'nightly.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.rmSync(log, { force: true });
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(cronEnv).map(([k, v]) => [k, moved(v)])),
      HOME: dir,
      AFTERSTOP_TRACES: folders.traces,
      AFTERSTOP_STORE: folders.store,
      AFTERSTOP_REPORTS: folders.reports,
      AFTERSTOP_PUSHGATEWAY: stack.pushgateway,
    };
    if (pathPrefix !== undefined) env['PATH'] = `${pathPrefix}:${env['PATH']}`;
    const r = await run(['/bin/sh', '-c', moved(command)], env, dir);
    return { status: r.status, log: r.output + fs.readFileSync(log, 'utf8') };
  }

  const folders = () => ({ traces: path.join(dir, 'cron', 'traces'), store: path.join(dir, 'cron', 'store'), reports: path.join(dir, 'cron', 'reports') });

  it('a night with a ghost commit: exit 1 naming the budget, the HTML report kept, the metrics pushed, old days pruned, old files deleted', async () => {
    const f = folders();
    traceFile(f.traces, 'g2-ghost-email', 2n * 3_600_000_000_000n);
    // Traces of 40 days ago, in a file as old: read into the store, then pruned from it and deleted.
    const old = traceFile(f.traces, 'g4-loop-continues', 40n * DAY_NS);
    const fortyDaysAgo = new Date(Date.now() - 40 * 86_400_000);
    fs.utimesSync(old, fortyDaysAgo, fortyDaysAgo);
    fs.mkdirSync(f.reports, { recursive: true });
    const oldReport = path.join(f.reports, 'afterstop-2020-01-01.html');
    fs.writeFileSync(oldReport, '<!doctype html>');
    const hundredDaysAgo = new Date(Date.now() - 100 * 86_400_000);
    fs.utimesSync(oldReport, hundredDaysAgo, hundredDaysAgo);

    const { status, log } = await night(f);
    expect(status, log).toBe(1);
    expect(log).toContain('afterstop: budget exceeded: --max-ghost-commits 0, the report has 1');
    const html = fs.readFileSync(path.join(f.reports, `afterstop-${today()}.html`), 'utf8');
    expect(html.slice(0, 200).toLowerCase()).toContain('<!doctype html>');
    expect(html).toContain('send_email');
    expect(await pushed('afterstop_budget_exceeded', 'nightly')).toContainEqual({ labels: 'budget="max-ghost-commits",instance="nightly",job="afterstop"', value: 1 });
    // The measured figure beside its limit, as the alert's text gives them.
    expect(await pushed('afterstop_budget_value', 'nightly')).toContainEqual({ labels: 'budget="max-ghost-commits",instance="nightly",job="afterstop"', value: 1 });
    expect(await pushed('afterstop_budget_limit', 'nightly')).toContainEqual({ labels: 'budget="max-ghost-commits",instance="nightly",job="afterstop"', value: 0 });
    // The shipped alert fires on the push, its text the measured figure beside the limit, its runbook linked.
    const alert = await firing('AfterstopBudgetExceeded', 'nightly');
    expect(alert.labels).toMatchObject({ job: 'afterstop', budget: 'max-ghost-commits', severity: 'warning' });
    expect(alert.annotations['description']).toBe('The last report of afterstop/nightly did not pass --max-ghost-commits: it has 1, the limit is 0.');
    expect(alert.annotations['runbook_url']).toBe('https://github.com/afterstop/afterstop/blob/main/docs/runbooks/AfterstopBudgetExceeded.md');
    const pruned = pruneSummary(log);
    expect(pruned.days).toContain(new Date(Number((nowNs - 40n * DAY_NS) / 1_000_000n)).toISOString().slice(0, 10));
    expect(pruned.spans).toBe(fs.readFileSync(path.join(golden, 'g4-loop-continues.jsonl'), 'utf8').match(/"spanId"/g)!.length);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(path.join(f.traces, 'g2-ghost-email.jsonl'))).toBe(true);
    expect(fs.existsSync(oldReport)).toBe(false);
  });

  it('the next night over the same store reads nothing new and judges the same runs: the store persists', async () => {
    const { status, log } = await night(folders());
    expect(status, log).toBe(1);
    expect(await pushed('afterstop_report_read_spans', 'nightly')).toEqual([{ labels: 'instance="nightly",job="afterstop"', value: 0 }]);
    expect(await pushed('afterstop_report_nothing_to_judge', 'nightly')).toEqual([{ labels: 'instance="nightly",job="afterstop",status="runs"', value: 0 }]);
  });

  it("a night whose report passed and whose retention failed exits with prune's code, not a budget's 1", async () => {
    // The store's volume full at retention, after a report that passed: \`afterstop prune\` exits 74 (storage). Here a
    // wrapper in front of the installed command gives prune that exit (a full disk cannot be made on cue); every other
    // command is the real one.
    const wrapper = path.join(dir, 'prune-fails');
    fs.mkdirSync(wrapper, { recursive: true });
    fs.writeFileSync(path.join(wrapper, 'afterstop'), `#!/bin/sh\n[ "$1" = prune ] && exit 74\nexec "${path.join(bin, 'afterstop')}" "$@"\n`, { mode: 0o755 });
    const f = { traces: path.join(dir, 'full', 'traces'), store: path.join(dir, 'full', 'store'), reports: path.join(dir, 'full', 'reports') };
    traceFile(f.traces, 'g3-repaired', 3_600_000_000_000n);
    const r = await night(f, wrapper);
    expect(r.status, r.log).toBe(74);
    expect(fs.existsSync(path.join(f.reports, `afterstop-${today()}.html`))).toBe(true);
  });

  it('a night within budget exits 0; a night with no traces exits 3 and pushes nothing_to_judge', async () => {
    const good = { traces: path.join(dir, 'good', 'traces'), store: path.join(dir, 'good', 'store'), reports: path.join(dir, 'good', 'reports') };
    traceFile(good.traces, 'g3-repaired', 3_600_000_000_000n);
    const passed = await night(good);
    expect(passed.status, passed.log).toBe(0);
    expect(await pushed('afterstop_budget_exceeded', 'nightly')).toEqual(expect.arrayContaining([expect.objectContaining({ labels: expect.stringContaining('max-ghost-commits'), value: 0 })]));

    const empty = { traces: path.join(dir, 'empty', 'traces'), store: path.join(dir, 'empty', 'store'), reports: path.join(dir, 'empty', 'reports') };
    fs.mkdirSync(empty.traces, { recursive: true });
    const nothing = await night(empty);
    expect(nothing.status, nothing.log).toBe(3);
    expect(nothing.log).toContain('afterstop: nothing to judge');
    expect(await pushed('afterstop_report_nothing_to_judge', 'nightly')).toEqual([{ labels: 'instance="nightly",job="afterstop",status="no_spans"', value: 1 }]);
    const alert = await firing('AfterstopReportNothingToJudge', 'nightly');
    expect(alert.annotations['description']).toMatch(/^The last report of afterstop\/nightly read no agent run \(no_spans: 0 new spans read, 0 in the store\), where a night should judge at least one/);
    // The HTML is written all the same: it says there was nothing to judge.
    expect(fs.existsSync(path.join(empty.reports, `afterstop-${today()}.html`))).toBe(true);
  });
});

describe('the Kubernetes CronJob, its container command run with its environment', () => {
  it('runs the ConfigMap’s script over the volumes: exit 1 on the ghost commit, the report on the store’s volume', async () => {
    const objects = kubernetesObjects();
    const { container, volumes } = cronJob(objects);
    const data = path.join(dir, 'k8s');
    // The volumes' mount paths moved under this test's folder; the ConfigMap's files where its volume is mounted.
    const mounts = Object.fromEntries(container.volumeMounts.map((m) => [m.mountPath, path.join(data, m.name)]));
    const moved = (s: string): string => Object.entries(mounts).reduce((acc, [from, to]) => acc.replaceAll(from, to), s);
    for (const m of container.volumeMounts) {
      fs.mkdirSync(mounts[m.mountPath]!, { recursive: true });
      const configMap = volumes.find((v) => v.name === m.name)?.configMap?.name;
      if (configMap !== undefined)
        for (const [file, text] of Object.entries(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === configMap)!.data!)) fs.writeFileSync(path.join(mounts[m.mountPath]!, file), text);
    }
    const env = Object.fromEntries(container.env.map(({ name, value }) => [name, value.startsWith('http') ? stack.pushgateway : moved(value)]));
    const tracesMount = container.volumeMounts.find((m) => m.name === 'traces')!;
    traceFile(mounts[tracesMount.mountPath]!, 'g2-ghost-email', 3_600_000_000_000n);
    const [install, command] = container.command[2]!.split(' || exit 75; ');
    expect(install).toContain(INSTALL.split(' ').at(-1));
    const r = await run([container.command[0]!, container.command[1]!, moved(command!)], { ...env, PATH: `${bin}:/usr/bin:/bin`, HOME: data }, data);
    expect(r.status, r.output).toBe(1);
    expect(fs.existsSync(path.join(env['AFTERSTOP_REPORTS']!, `afterstop-${today()}.html`))).toBe(true);
    expect(fs.readdirSync(env['AFTERSTOP_STORE']!)).toContain('catalog.duckdb');
    expect(pruneSummary(r.output)).toMatchObject({ days: [], spans: 0 });
  });
});

describe('the GitHub Actions workflow, its steps run as a runner runs them', () => {
  let clickhouse: ClickHouseHttp;
  beforeAll(async () => {
    const traces = path.join(dir, 'gha-traces');
    clickhouse = await clickhouseHttp({ otel_traces: { files: [traceFile(traces, 'g2-ghost-email', 3_600_000_000_000n)] } });
  }, 60_000);
  afterAll(async () => {
    await clickhouse?.close();
  });

  it('the report’s step fails the job (exit 1) on the ghost commit, and leaves the HTML the upload step keeps', async () => {
    type Step = { run?: string; uses?: string; if?: string; with?: Record<string, string> };
    const workflow = parse(recipe('github-actions').text) as { jobs: Record<string, { env: Record<string, string>; steps: Step[] }> };
    const job = Object.values(workflow.jobs)[0]!;
    const secrets: Record<string, string> = { AFTERSTOP_CLICKHOUSE_URL: clickhouse.url, AFTERSTOP_PUSHGATEWAY_URL: stack.pushgateway };
    const env = Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, v.replace(/^\$\{\{ secrets\.(\w+) \}\}$/, (_, name: string) => secrets[name]!)]));
    const workspace = path.join(dir, 'gha-workspace');
    fs.mkdirSync(workspace, { recursive: true });
    const outcomes: (number | null)[] = [];
    for (const step of job.steps.filter((s) => s.run !== undefined && s.run !== INSTALL)) {
      // As a runner runs a `run:` step with no `shell:`: its text in a file, `bash -e {0}`.
      const file = path.join(dir, `step-${outcomes.length}.sh`);
      fs.writeFileSync(file, step.run!);
      const r = await run(['bash', '-e', file], { ...env, PATH: `${bin}:/usr/bin:/bin`, HOME: workspace }, workspace);
      outcomes.push(r.status);
    }
    expect(outcomes).toEqual([1]);
    const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(fs.readFileSync(path.join(workspace, upload.with!['path']!), 'utf8')).toContain('send_email');
    expect(await pushed('afterstop_budget_exceeded', 'github-nightly')).toContainEqual({ labels: 'budget="max-ghost-commits",instance="github-nightly",job="afterstop"', value: 1 });
  });
});
