import { Gauge, Pushgateway, Registry } from 'prom-client';
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
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Push the report to a Pushgateway (`--push-gateway URL`), replacing what
 * the same job and instance pushed last time (PUT): a nightly job's figures
 * are the last report's, not a sum.
 */
export async function pushReport(url: string, report: LeakReport, options: PushOptions = {}): Promise<void> {
  const gateway = new Pushgateway(url, { timeout: options.timeoutMs ?? 10_000 }, reportRegistry(report, options));
  const { resp } = await gateway.push({ jobName: options.job ?? 'afterstop', groupings: { instance: options.instance ?? 'default' } });
  const status = (resp as { statusCode?: number } | undefined)?.statusCode;
  if (status !== undefined && (status < 200 || status >= 300)) throw new Error(`the Pushgateway at ${url} answered ${status}`);
}
