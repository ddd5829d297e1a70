import { Gauge, Registry } from 'prom-client';
import { httpDeadlineMs, withinDeadline } from '../http-deadline.js';
import { redactUrl, serverText } from '../redact.js';
import type { LeakReport } from '../types.js';
import { metricFamilies, type MetricOptions } from './metric-families.js';

/**
 * The report's metric families in a prom-client registry: prom-client writes
 * the text exposition format (escaping, ordering) and speaks to the
 * Pushgateway, so afterstop only decides what the metrics are.
 */
export function reportRegistry(report: LeakReport, options: MetricOptions = {}): Registry {
  const registry = new Registry();
  for (const family of metricFamilies(report, options)) {
    const gauge = new Gauge({ name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry] });
    for (const sample of family.samples) gauge.set(sample.labels, sample.value);
  }
  return registry;
}

/** The text exposition format, for node_exporter's textfile collector (`--prometheus-file`). */
export function renderPrometheus(report: LeakReport, options: MetricOptions = {}): Promise<string> {
  return reportRegistry(report, options).metrics();
}

export interface PushOptions extends MetricOptions {
  /** The `job` label. Default `afterstop`. */
  job?: string;
  /** The `instance` label. Default `default`: one per nightly job, stable from run to run. */
  instance?: string;
  /** The push, answer included, within this long. Default AFTERSTOP_HTTP_DEADLINE_MS, else 10 s. */
  timeoutMs?: number;
}

/** What of a Pushgateway's error answer is read (and then cut to one line): it is the server's, not ours to echo. */
const MAX_ANSWER_BYTES = 4096;

/** At most `max` bytes of a response's body, then the rest cancelled. */
async function bodyStart(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** The push's URL (prom-client's layout: the gateway's path, then /metrics/job/<job>/instance/<instance>) and its credentials as a header. */
function pushTarget(url: string, job: string, instance: string): { target: string; headers: Record<string, string> } {
  const parsed = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' };
  if (parsed.username !== '' || parsed.password !== '') {
    const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64');
    headers['authorization'] = `Basic ${basic}`;
  }
  parsed.username = '';
  parsed.password = '';
  const base = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = `${base}/metrics/job/${encodeURIComponent(job)}/instance/${encodeURIComponent(instance)}`;
  return { target: parsed.toString(), headers };
}

/**
 * Push the report to a Pushgateway (`--push-gateway URL`), replacing what
 * the same job and instance pushed last time (PUT): a nightly job's figures
 * are the last report's, not a sum. The whole exchange has a deadline (a
 * Pushgateway that trickles its answer is given up); a failure names the
 * gateway without its password, and what it answered cut to one line with
 * credentials masked (a proxy may echo the request's Authorization header).
 */
export async function pushReport(url: string, report: LeakReport, options: PushOptions = {}): Promise<void> {
  const shown = redactUrl(url);
  const deadline = options.timeoutMs ?? httpDeadlineMs(10_000);
  const body = await reportRegistry(report, options).metrics();
  const { target, headers } = pushTarget(url, options.job ?? 'afterstop', options.instance ?? 'default');
  try {
    await withinDeadline(
      deadline,
      async (signal) => {
        const response = await fetch(target, { method: 'PUT', body, headers, signal, redirect: 'manual' });
        if (response.status < 200 || response.status >= 300) {
          const answer = serverText(await bodyStart(response, MAX_ANSWER_BYTES));
          throw new PushFailed(`the Pushgateway at ${shown} answered ${response.status}${answer === '' ? '' : `: ${answer}`}`);
        }
        await bodyStart(response, 0);
      },
      (within) => new PushFailed(`the Pushgateway at ${shown} did not answer ${within}`),
    );
  } catch (error) {
    if (PushFailed.isInstance(error)) throw error;
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    throw new PushFailed(`the Pushgateway at ${shown} could not be reached (${serverText(cause?.code ?? cause?.message ?? (error as Error).message)})`);
  }
}

const pushFailedSymbol = Symbol.for('afterstop.push-failed');

/** A push that did not land, said in words fit for stderr (no credential, no raw server body). */
export class PushFailed extends Error {
  private readonly [pushFailedSymbol] = true;
  override readonly name = 'PushFailed';

  static isInstance(error: unknown): error is PushFailed {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[pushFailedSymbol] === true;
  }
}
