import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { distModule } from '../helpers/child.js';

/** The built demo program, as `npm start` runs it (the test kit's program; the analyzer CLI has no demo). */
const demo = fileURLToPath(distModule('demo/main.js'));
const run = (args: string[]) => spawnSync(process.execPath, [demo, ...args], { encoding: 'utf8', timeout: 120_000 });

describe('the demo program (node dist/demo/main.js, what npm start runs)', () => {
  it('writes traces to --traces-dir, prints the ghost commit and the leak report, and exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-demo-program-'));
    try {
      const out = run(['--traces-dir', dir]);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain('ghost commit: send_email');
      expect(out.stdout).toContain(`Traces: ${dir}/`);
      const read = await readTraces(dir);
      expect(read.skipped).toEqual([]);
      expect(read.spans.filter((s) => s.name === 'afterstop.cancel.request')).toHaveLength(2);
      expect(new Set(read.spans.map((s) => s.resource['service.name']))).toEqual(new Set(['afterstop-demo']));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 with its usage on stderr for an unknown option, and writes nothing', () => {
    const out = run(['--trace-dir', 'x']);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("afterstop demo: Unknown option '--trace-dir'");
    expect(out.stderr).toContain('Usage: node dist/demo/main.js [--traces-dir DIR]');
    expect(out.stdout).toBe('');
  });
});
