import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A real Pushgateway and a real Prometheus (Debian's `prometheus-pushgateway`
 * and `prometheus`, installed by .ci/run) on loopback, Prometheus scraping
 * the Pushgateway every second.
 */
export interface PrometheusStack {
  pushgateway: string;
  prometheus: string;
  /** Instant query through Prometheus's HTTP API: the result vector. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The values of `label` on the series of `metric` (what Grafana's label_values(metric, label) asks). */
  labelValues(metric: string, label: string): Promise<string[]>;
  /** The alerts Prometheus holds now (its alerts API): pending and firing, with their labels and annotations. */
  alerts(): Promise<{ labels: Record<string, string>; annotations: Record<string, string>; state: string; value: string }[]>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited with ${child.exitCode}: ${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}: not ready after 30 s: ${log()}`);
}

function start(command: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-4000)));
  child.stderr?.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-4000)));
  return { child, log: () => out };
}

/**
 * Start both. A free port found here can be taken by another test file
 * before the server binds it (the server then exits, and the other file's
 * server answers on that port): a server that is not alive once ready is
 * started again on other ports.
 */
export interface StackOptions {
  /** More scrape targets (an app's metrics endpoint), scraped every second. */
  targets?: { job: string; target: string }[];
  /** Rule files (absolute paths), evaluated every second. */
  ruleFiles?: string[];
}

export async function startPrometheusStack(attempts = 5, options: StackOptions = {}): Promise<PrometheusStack> {
  for (let i = 1; ; i++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (i >= attempts || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(options: StackOptions): Promise<PrometheusStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-prometheus-'));
  const [gatewayPort, prometheusPort] = [await freePort(), await freePort()];
  const pushgateway = `http://127.0.0.1:${gatewayPort}`;
  const prometheus = `http://127.0.0.1:${prometheusPort}`;
  // Debian's build persists to /var/lib/prometheus/pushgateway.data by default: each stack keeps its own.
  const gateway = start('prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${gatewayPort}`, `--persistence.file=${path.join(dir, 'pushgateway.data')}`]);
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      ...(options.ruleFiles?.length ? ['rule_files:', ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)] : []),
      'scrape_configs:',
      '  - job_name: pushgateway',
      '    honor_labels: true',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${gatewayPort}']`,
      ...(options.targets ?? []).flatMap((t) => [`  - job_name: ${JSON.stringify(t.job)}`, '    static_configs:', `      - targets: [${JSON.stringify(t.target)}]`]),
      '',
    ].join('\n'),
  );
  const server = start('prometheus', [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`]);
  const close = async (): Promise<void> => {
    for (const c of [gateway.child, server.child]) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all([gateway.child, server.child].map((c) => (c.exitCode !== null ? undefined : new Promise((resolve) => c.once('exit', resolve)))));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(`${pushgateway}/-/ready`, gateway.child, gateway.log);
    await waitReady(`${prometheus}/-/ready`, server.child, server.log);
    // Ours answered, not another file's on the same port: both still run.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (gateway.child.exitCode !== null || server.child.exitCode !== null) throw new PortTaken(`a port was taken: ${gateway.log()} ${server.log()}`);
  } catch (error) {
    await close();
    throw error instanceof Error && /exited with/.test(error.message) ? new PortTaken(error.message) : error;
  }
  return {
    pushgateway,
    prometheus,
    async query(promql) {
      const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error ?? response.status}`);
      return body.data?.result ?? [];
    },
    async labelValues(metric, label) {
      const response = await fetch(`${prometheus}/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(metric)}`);
      const body = (await response.json()) as { status: string; data?: string[] };
      if (body.status !== 'success') throw new Error(`label values of ${label}: ${response.status}`);
      return body.data ?? [];
    },
    async alerts() {
      const response = await fetch(`${prometheus}/api/v1/alerts`);
      const body = (await response.json()) as { status: string; data?: { alerts: { labels: Record<string, string>; annotations: Record<string, string>; state: string; value: string }[] } };
      if (body.status !== 'success') throw new Error(`alerts: ${response.status}`);
      return body.data?.alerts ?? [];
    },
    close,
  };
}

/** `fn`'s value once it has one (not undefined), asked again every 250 ms; an Error naming `what` after `ms`. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
