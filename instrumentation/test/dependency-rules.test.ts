import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The instrumentation's boundaries (.dependency-cruiser.cjs), checked as `npm run deps` checks them. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const configFile = path.join(root, '.dependency-cruiser.cjs');

async function cruiseIn(baseDir: string, targets: string[]): Promise<ICruiseResult> {
  const options: ICruiseOptions = await extractDepcruiseOptions(configFile);
  const tsConfigFile = path.join(baseDir, 'tsconfig.json');
  const cruiseOptions: ICruiseOptions = {
    ...options,
    baseDir,
    tsConfig: { fileName: tsConfigFile },
  };
  const result = await cruise(targets, cruiseOptions, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  return result.output as ICruiseResult;
}

/** A small tree laid out like instrumentation/: each file one import, allowed or not. */
const FIXTURE: Record<string, string> = {
  'instrumentation/guard/config.ts': 'export const guard = (): number => 1;\n',
  'instrumentation/guard/index.ts': "export { guard } from './config.js';\n",
  'instrumentation/guard/setup.ts': "import { guard } from './config.js';\nexport const setupGuard = (): number => guard();\n",
  'instrumentation/export/queue.ts': 'export interface Queue { size: number }\n',
  // Allowed: the core through guard/index.ts.
  'instrumentation/tool.ts': "import { guard } from './guard/index.js';\nexport const tool = (): number => guard();\n",
  // Forbidden: the core into the guard's internals.
  'instrumentation/run.ts': "import { guard } from './guard/config.js';\nexport const run = (): number => guard();\n",
  // Forbidden, though type-only: the core into the exporter.
  'instrumentation/model.ts': "import type { Queue } from './export/queue.js';\nexport const model = (q: Queue): number => q.size;\n",
  // Forbidden: @opentelemetry/core in the instrumentation.
  'instrumentation/markers.ts': "import { hrTime } from '@opentelemetry/core';\nexport const now = (): number => hrTime()[0];\n",
  // Allowed: a composition root into the guard's and the exporter's internals.
  'instrumentation/pipeline.ts': "import { setupGuard } from './guard/setup.js';\nimport type { Queue } from './export/queue.js';\nexport const pipeline = (q: Queue): number => setupGuard() + q.size;\n",
  'instrumentation/adapter-api.ts': "export { tool } from './tool.js';\n",
  // Allowed: an adapter through adapter-api.ts, other adapters, packages.
  'instrumentation/auto/good.ts':
    "import { trace } from '@opentelemetry/api';\nimport { tool } from '../adapter-api.js';\nimport { helper } from './helper.js';\nexport const good = (): unknown => [trace, tool(), helper];\n",
  'instrumentation/auto/helper.ts': 'export const helper = 1;\n',
  // Forbidden: an adapter straight into the core.
  'instrumentation/auto/bad.ts': "import { tool } from '../tool.js';\nexport const bad = (): number => tool();\n",
  // Forbidden: a cycle, of type-only imports.
  'instrumentation/cycle-a.ts': "import type { B } from './cycle-b.js';\nexport interface A { b?: B }\n",
  'instrumentation/cycle-b.ts': "import type { A } from './cycle-a.js';\nexport interface B { a?: A }\n",
  // Forbidden: the instrumentation into the analyzer.
  'instrumentation/report-link.ts': "import { x } from '../analyzer/x.js';\nexport const y = x;\n",
  'analyzer/x.ts': 'export const x = 1;\n',
};

describe('dependency rules of the instrumentation (.dependency-cruiser.cjs)', () => {
  let fixture: string;

  beforeAll(() => {
    fixture = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-deps-'));
    for (const [file, text] of Object.entries(FIXTURE)) {
      fs.mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      fs.writeFileSync(path.join(fixture, file), text);
    }
    fs.copyFileSync(path.join(root, 'instrumentation', 'package.json'), path.join(fixture, 'package.json'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(fixture, 'node_modules'), 'dir');
    const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, verbatimModuleSyntax: true, skipLibCheck: true };
    fs.writeFileSync(path.join(fixture, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['instrumentation', 'analyzer'] }));
  });

  afterAll(() => {
    fs.rmSync(fixture, { recursive: true, force: true });
  });

  it('rejects each forbidden import by its rule, and only those', async () => {
    const result = await cruiseIn(fixture, ['instrumentation', 'analyzer']);
    // A package by its name (node_modules is a link here); a cycle once, however many of its imports are named.
    const found = [
      ...new Set(
        result.summary.violations.map((v) => {
          const to = v.to.replace(/^.*node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*$/, 'node_modules/$1');
          return v.rule.name === 'instrumentation-no-circular' ? `${v.rule.name}: ${[v.from, to].sort().join(' ⇄ ')}` : `${v.rule.name}: ${v.from} → ${to}`;
        }),
      ),
    ].sort();
    expect(found).toEqual(
      [
        'instrumentation-core-not-to-guard-internals: instrumentation/run.ts → instrumentation/guard/config.ts',
        'instrumentation-core-not-to-export: instrumentation/model.ts → instrumentation/export/queue.ts',
        'instrumentation-no-non-package-json: instrumentation/markers.ts → node_modules/@opentelemetry/core',
        'instrumentation-not-to-heavy-packages: instrumentation/markers.ts → node_modules/@opentelemetry/core',
        'instrumentation-adapters-through-adapter-api: instrumentation/auto/bad.ts → instrumentation/tool.ts',
        'instrumentation-no-circular: instrumentation/cycle-a.ts ⇄ instrumentation/cycle-b.ts',
        'instrumentation-not-to-analysis-or-tests: instrumentation/report-link.ts → analyzer/x.ts',
      ].sort(),
    );
    expect(result.summary.violations.every((v) => v.rule.severity === 'error')).toBe(true);
  });

  it('finds no violation in the real tree', async () => {
    const result = await cruiseIn(root, ['instrumentation', 'analyzer']);
    expect(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    // The rules did look at the instrumentation: its modules were cruised.
    expect(result.modules.some((m) => m.source === 'instrumentation/adapter-api.ts')).toBe(true);
    expect(result.modules.some((m) => m.source === 'instrumentation/auto/langgraph.ts')).toBe(true);
  });
});
