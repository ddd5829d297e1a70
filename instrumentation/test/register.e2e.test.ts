import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { distModule } from '../../test/helpers/child.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function runWithRegister(script: string, env: Record<string, string>, before: string[] = []) {
  return spawnSync(process.execPath, [...before.flatMap((m) => ['--import', m]), '--import', 'afterstop/register', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env },
  });
}

describe('node --import afterstop/register', () => {
  it('sets up the file exporter before the app runs, from the environment', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-register-'));
    try {
      const out = runWithRegister(
        `import { trace } from '@opentelemetry/api';
         import { startRun, shutdown } from 'afterstop';
         const app = trace.getTracer('app').startSpan('app span before any afterstop call');
         app.end();
         const run = startRun({ agentName: 'registered' });
         await run.cancel();
         run.end();
         await shutdown();`,
        { AFTERSTOP_TRACES_DIR: dir, OTEL_SERVICE_NAME: 'registered-app' },
      );
      expect(out.stderr).toBe('');
      expect(out.status).toBe(0);
      const read = await readTraces(dir);
      const names = read.spans.map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['app span before any afterstop call', 'afterstop.cancel.request', 'invoke_agent registered']));
      expect(read.spans[0]!.resource['service.name']).toBe('registered-app');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("joins the app's own SDK when that is imported first: spans reach both the app's exporter and the file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-register-'));
    try {
      const out = runWithRegister(
        `import { trace } from '@opentelemetry/api';
         import { startRun, shutdown } from 'afterstop';
         trace.getTracer('app').startSpan('GET /checkout').end();
         const run = startRun({ agentName: 'joined' });
         await run.cancel();
         run.end();
         await shutdown();`,
        { AFTERSTOP_TRACES_DIR: dir },
        ['./test/fixtures/register/app-sdk.mjs'],
      );
      expect(out.stderr).toBe('');
      expect(out.status).toBe(0);
      const appNames = JSON.parse(/app exporter: (.*)/.exec(out.stdout)?.[1] ?? '[]') as string[];
      expect(appNames).toEqual(expect.arrayContaining(['GET /checkout', 'afterstop.cancel.request', 'invoke_agent joined']));
      const fileNames = (await readTraces(dir)).spans.map((s) => s.name);
      expect(fileNames).toEqual(expect.arrayContaining(['GET /checkout', 'afterstop.cancel.request', 'invoke_agent joined']));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the app running when its working folder was removed under it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-gone-'));
    const out = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import * as fs from 'node:fs';
         import { startRun, withRun } from ${JSON.stringify(distModule('instrumentation/index.js'))};
         process.chdir(${JSON.stringify(dir)});
         fs.rmSync(${JSON.stringify(dir)}, { recursive: true });
         const run = startRun({});
         await run.cancel();
         run.end();
         console.log(await withRun({}, () => 'still works'));`,
      ],
      { encoding: 'utf8', timeout: 30_000, env: { ...process.env, AFTERSTOP_TRACES_DIR: '' } },
    );
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe('still works');
  });

  it('leaves the app running, uninstrumented, when OTEL_SDK_DISABLED is set', () => {
    const out = runWithRegister(`console.log('app ran')`, { OTEL_SDK_DISABLED: 'true' });
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe('app ran');
  });
});
