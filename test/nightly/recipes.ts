import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * The recipes of docs/nightly.md, as the page shows them: each is the fenced block after a
 * `<!-- recipe: NAME -->` comment. The tests read them from the page, so that the page and what is tested
 * cannot drift apart.
 */
export const root = fileURLToPath(new URL('../../', import.meta.url));
export const NIGHTLY_DOC = path.join(root, 'docs', 'nightly.md');
export const RECIPES = ['script', 'cron', 'github-actions', 'kubernetes'] as const;
export type RecipeName = (typeof RECIPES)[number];

/** The text of the fenced block after `<!-- recipe: name -->` (its fence's language apart). */
export function recipe(name: RecipeName, doc = fs.readFileSync(NIGHTLY_DOC, 'utf8')): { lang: string; text: string } {
  const marker = `<!-- recipe: ${name} -->\n`;
  const at = doc.indexOf(marker);
  if (at < 0 || doc.indexOf(marker, at + 1) >= 0) throw new Error(`docs/nightly.md: ${at < 0 ? 'no' : 'more than one'} ${marker.trim()}`);
  const m = /^```(\S*)\n([\s\S]*?)^```$/m.exec(doc.slice(at + marker.length));
  if (m === null || m.index !== 0) throw new Error(`docs/nightly.md: ${marker.trim()} is not followed by a fenced block`);
  return { lang: m[1]!, text: m[2]! };
}

/** The analyzer package as published: its name, version and command (what the install lines must name). */
export const analyzerPackage = JSON.parse(fs.readFileSync(path.join(root, 'analyzer', 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; engines: { node: string } };
/** The install line the recipes use. */
export const INSTALL = `npm install --global @afterstop/analyzer@${analyzerPackage.version}`;

/** The crontab recipe: its environment lines and its one job (schedule, command). */
export function crontab(text = recipe('cron').text): { env: Record<string, string>; schedule: string[]; command: string } {
  const env: Record<string, string> = {};
  const jobs: { schedule: string[]; command: string }[] = [];
  for (const line of text.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (assignment !== null) env[assignment[1]!] = assignment[2]!;
    else {
      const fields = line.trim().split(/\s+/);
      jobs.push({ schedule: fields.slice(0, 5), command: fields.slice(5).join(' ') });
    }
  }
  if (jobs.length !== 1) throw new Error(`the cron recipe has ${jobs.length} jobs, not 1`);
  return { env, ...jobs[0]! };
}

/** Whether five crontab fields are a valid schedule (numbers, ranges, lists, steps within each field's range; `*`). */
export function validCronSchedule(fields: readonly string[]): boolean {
  const ranges = [
    [0, 59],
    [0, 23],
    [1, 31],
    [1, 12],
    [0, 7],
  ] as const;
  if (fields.length !== 5) return false;
  return fields.every((field, i) =>
    field.split(',').every((part) => {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
      if (m === null) return false;
      const [lo, hi] = ranges[i]!;
      const nums = [m[2], m[3], m[4]].filter((x) => x !== undefined).map(Number);
      const inRange = [m[2], m[3]].filter((x) => x !== undefined).every((x) => Number(x) >= lo && Number(x) <= hi);
      return inRange && nums.every((n) => Number.isInteger(n)) && (m[4] === undefined || Number(m[4]) > 0);
    }),
  );
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/** The Kubernetes recipe's objects (a YAML stream), parse errors thrown. */
export function kubernetesObjects(text = recipe('kubernetes').text): KubeObject[] {
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new Error(`kubernetes recipe: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS() as KubeObject;
  });
}

export interface CronJobContainer {
  name: string;
  image: string;
  command: string[];
  env: { name: string; value: string }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

/** The CronJob's pod: its one container, volumes, and the Job's spec. */
export function cronJob(objects = kubernetesObjects()): {
  cronJob: KubeObject & { spec: { schedule: string; concurrencyPolicy?: string; jobTemplate: { spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } } } } };
  container: CronJobContainer;
  volumes: { name: string; persistentVolumeClaim?: { claimName: string }; configMap?: { name: string } }[];
} {
  const job = objects.find((o) => o.kind === 'CronJob');
  if (job === undefined) throw new Error('no CronJob in the kubernetes recipe');
  const spec = job.spec as { schedule: string; jobTemplate: { spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } } } };
  const pod = spec.jobTemplate.spec.template.spec as { containers: CronJobContainer[]; volumes: never[] };
  if (pod.containers.length !== 1) throw new Error('the CronJob has more than one container');
  return { cronJob: job as never, container: pod.containers[0]!, volumes: pod.volumes };
}

/** OTLP/JSON lines with every span and event time moved by `deltaNs` (golden traces made recent, or old). */
export function shiftedTraces(file: string, deltaNs: bigint): string {
  return fs.readFileSync(file, 'utf8').replace(/"(startTimeUnixNano|endTimeUnixNano|timeUnixNano)":"(\d+)"/g, (_, key: string, v: string) => `"${key}":"${BigInt(v) + deltaNs}"`);
}

/** The earliest span start of an OTLP/JSON lines file, ns. */
export function earliestStartNs(file: string): bigint {
  const starts = [...fs.readFileSync(file, 'utf8').matchAll(/"startTimeUnixNano":"(\d+)"/g)].map((m) => BigInt(m[1]!));
  let earliest = starts[0]!;
  for (const s of starts) if (s < earliest) earliest = s;
  return earliest;
}
