import * as fs from 'node:fs';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow, type WorkflowTemplate } from '@actions/workflow-parser';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT_BUDGET, EXIT_INTERNAL, EXIT_NOTHING_TO_JUDGE, EXIT_OK, EXIT_STORAGE, EXIT_USAGE } from '../../analyzer/cli/exit-codes.js';
import { analyzerPackage, cronJob, crontab, INSTALL, kubernetesObjects, NIGHTLY_DOC, recipe, RECIPES, validCronSchedule } from './recipes.js';

/**
 * docs/nightly.md's recipes, read from the page: the GitHub Actions workflow through GitHub's own parser
 * (@actions/workflow-parser, as GitHub's language services use it: parse, then convert, every error
 * collected), the Kubernetes objects through a YAML parser and the Kubernetes API's schemas (kubernetes-models:
 * no cluster to dry-run against) and checked for what the job needs, the crontab
 * line for its schedule. test/nightly/recipes.e2e.test.ts runs their commands.
 */
const doc = fs.readFileSync(NIGHTLY_DOC, 'utf8');

/** GitHub's parser over a workflow: its errors (parse and conversion) and the template. */
async function parseWorkflowText(content: string): Promise<{ errors: string[]; template: WorkflowTemplate }> {
  const parsed = parseWorkflow({ name: '.github/workflows/afterstop-nightly.yml', content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (parsed.value === undefined) return { errors, template: { events: {}, jobs: [], concurrency: undefined as never, env: undefined as never } };
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return { errors: [...new Set([...errors, ...(template.errors ?? []).map((e) => e.Message)])], template };
}

type Step = { id: string; if?: { expression: string }; run?: { value: string }; uses?: { value: string } };
const stepsOf = (t: WorkflowTemplate): Step[] => (t.jobs[0] as unknown as { steps: Step[] }).steps;
/** A step's `with:` inputs, as the YAML says them (GitHub's model keeps them as tokens). */
const withOf = (index: number): Record<string, unknown> => {
  const workflow = parse(recipe('github-actions').text) as { jobs: Record<string, { steps: { with?: Record<string, unknown> }[] }> };
  return Object.values(workflow.jobs)[0]!.steps[index]!.with ?? {};
};

describe('docs/nightly.md recipes', () => {
  it('each recipe is marked once and fenced', () => {
    expect(RECIPES.map((name) => recipe(name, doc).lang)).toEqual(['sh', 'crontab', 'yaml', 'yaml']);
  });

  it('the install lines name the analyzer package at its version, whose command is afterstop, on a Node its engines accept', () => {
    expect(analyzerPackage.name).toBe('@afterstop/analyzer');
    expect(Object.keys(analyzerPackage.bin)).toEqual(['afterstop']);
    expect(analyzerPackage.engines.node).toBe('>=22');
    expect(doc).toContain(`\n${INSTALL}\n`);
    // Every install anywhere on the page is of this version (a release must update the page).
    for (const m of doc.matchAll(/@afterstop\/analyzer@(\S+?)[`\s]/g)) expect(m[1]).toBe(analyzerPackage.version);
  });

  it('the exit-code table names every exit code of the CLI', () => {
    for (const code of [EXIT_OK, EXIT_BUDGET, EXIT_NOTHING_TO_JUDGE, EXIT_USAGE, EXIT_STORAGE, EXIT_INTERNAL]) expect(doc).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
  });

  describe('GitHub Actions', () => {
    it('GitHub’s workflow parser finds no error in it', async () => {
      const { errors, template } = await parseWorkflowText(recipe('github-actions').text);
      expect(errors).toEqual([]);
      expect(template.jobs).toHaveLength(1);
    });

    it('the parser does find errors in a broken workflow (the check can fail)', async () => {
      const broken = recipe('github-actions').text.replace('timeout-minutes:', 'timeout-minute:').replace('runs-on:', 'run-on:');
      const { errors } = await parseWorkflowText(broken);
      expect(errors.join('\n')).toMatch(/timeout-minute/);
      expect(errors.join('\n')).toMatch(/run-on|runs-on/);
    });

    it('runs nightly on a schedule, on Node 22 or later, installs the command, fails on a budget and keeps the HTML whatever the outcome', async () => {
      const { template } = await parseWorkflowText(recipe('github-actions').text);
      const schedules = (template.events as { schedule?: { cron: string }[] }).schedule ?? [];
      expect(schedules).toHaveLength(1);
      expect(validCronSchedule(schedules[0]!.cron.split(' '))).toBe(true);
      const steps = stepsOf(template);
      const setup = steps.find((s) => s.uses?.value.startsWith('actions/setup-node@'));
      expect(Number(withOf(steps.indexOf(setup!))['node-version'])).toBeGreaterThanOrEqual(22);
      expect(steps.filter((s) => s.run !== undefined).map((s) => s.run!.value.split(' ').slice(0, 2).join(' '))).toEqual(['npm install', 'afterstop leak-report']);
      expect(steps.find((s) => s.run !== undefined)!.run!.value).toBe(INSTALL);
      const report = steps.find((s) => s.run?.value.startsWith('afterstop leak-report'))!.run!.value;
      expect(report).toMatch(/--max-ghost-commits \d/);
      expect(report).toContain('--push-gateway "$PUSHGATEWAY_URL"');
      const html = /--format html --out (\S+)/.exec(report)![1];
      const upload = steps.find((s) => s.uses?.value.startsWith('actions/upload-artifact@'))!;
      expect(withOf(steps.indexOf(upload))['path']).toBe(html);
      // After the report's step failed (a budget), the upload runs all the same.
      expect(upload.if?.expression).toBe('!cancelled()');
      expect(steps.indexOf(upload)).toBe(steps.length - 1);
    });
  });

  describe('Kubernetes CronJob', () => {
    it('a ConfigMap holding the script, byte for byte, and a batch/v1 CronJob', () => {
      const objects = kubernetesObjects();
      expect(objects.map((o) => `${o.apiVersion} ${o.kind}`)).toEqual(['v1 ConfigMap', 'batch/v1 CronJob']);
      expect(objects[0]!.data).toEqual({ 'afterstop-nightly.sh': recipe('script').text });
    });

    it('valid to the Kubernetes API’s schemas (kubernetes-models: its OpenAPI, types, enums, required fields); a broken one is not', () => {
      const [configMap, job] = kubernetesObjects();
      expect(() => new ConfigMap(configMap as never).validate()).not.toThrow();
      expect(() => new CronJob(job as never).validate()).not.toThrow();
      const broken = structuredClone(job) as unknown as { spec: { concurrencyPolicy: string; jobTemplate: { spec: { backoffLimit: unknown } } } };
      broken.spec.concurrencyPolicy = 'Never';
      broken.spec.jobTemplate.spec.backoffLimit = 'two';
      expect(() => new CronJob(broken as never).validate()).toThrow(/concurrencyPolicy must be equal to one of the allowed values.*backoffLimit must be integer|backoffLimit must be integer.*concurrencyPolicy/);
    });

    it('has what a CronJob needs, and runs the script from the ConfigMap with the command installed', () => {
      const { cronJob: job, container, volumes } = cronJob();
      expect(validCronSchedule(job.spec.schedule.split(' '))).toBe(true);
      expect(job.spec.concurrencyPolicy).toBe('Forbid');
      const pod = job.spec.jobTemplate.spec.template.spec;
      // podFailurePolicy requires restartPolicy Never.
      expect(pod['restartPolicy']).toBe('Never');
      expect(Number(/^node:(\d+)/.exec(container.image)?.[1])).toBeGreaterThanOrEqual(22);
      expect(container.command.slice(0, 2)).toEqual(['sh', '-c']);
      // An install that fails (the registry out of reach) exits 75, which the podFailurePolicy retries, not a budget's 1.
      const [install, run] = container.command[2]!.split(' || exit 75; exec ');
      expect(install).toBe(INSTALL.replace('--global', '--global --no-fund --no-audit'));
      const scriptMount = container.volumeMounts.find((m) => volumes.find((v) => v.name === m.name)?.configMap?.name === kubernetesObjects()[0]!.metadata.name)!;
      expect(run).toBe(`sh ${scriptMount.mountPath}/afterstop-nightly.sh`);
      // Every volume is mounted, every mount is a volume; each path the script is given lies on a volume.
      expect(container.volumeMounts.map((m) => m.name).sort()).toEqual(volumes.map((v) => v.name).sort());
      const script = recipe('script').text;
      const variables = [...script.matchAll(/\$\{(AFTERSTOP_[A-Z_]+):-/g)].map((m) => m[1]!);
      for (const { name, value } of container.env) {
        expect(variables).toContain(name);
        if (value.startsWith('/')) expect(container.volumeMounts.some((m) => !m.readOnly && value.startsWith(`${m.mountPath}/`)) || container.volumeMounts.some((m) => value === m.mountPath)).toBe(true);
      }
    });

    it('fails the Job at once on the exit codes a retry would repeat, and retries a storage error', () => {
      const { cronJob: job } = cronJob();
      const policy = job.spec.jobTemplate.spec['podFailurePolicy'] as { rules: { action: string; onExitCodes: { containerName: string; operator: string; values: number[] } }[] };
      expect(policy.rules).toEqual([{ action: 'FailJob', onExitCodes: { containerName: 'afterstop', operator: 'In', values: [EXIT_BUDGET, EXIT_USAGE, EXIT_NOTHING_TO_JUDGE, EXIT_INTERNAL] } }]);
      expect(job.spec.jobTemplate.spec['backoffLimit']).toBeGreaterThan(0);
    });
  });

  describe('cron', () => {
    it('one job on a valid schedule, running the script where the page says to save it, with PATH naming where npm puts afterstop', () => {
      const { env, schedule, command } = crontab();
      expect(validCronSchedule(schedule)).toBe(true);
      expect(env['PATH']?.split(':')).toContain('/usr/local/bin');
      const [script] = command.split(' ');
      expect(doc).toContain(`Save the script as \`${script}\``);
      expect(command).toMatch(/>>\S+ 2>&1$/);
    });

    it('the schedule check refuses what cron would', () => {
      for (const bad of ['61 3 * * *', '17 24 * * *', '* * 0 * *', '*/0 * * * *', '17 3 * *']) expect(validCronSchedule(bad.split(' ')), bad).toBe(false);
      for (const good of ['17 3 * * *', '*/15 0-6 1,15 * 1-5']) expect(validCronSchedule(good.split(' ')), good).toBe(true);
    });
  });
});
