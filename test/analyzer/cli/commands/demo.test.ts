import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../../analyzer/index.js';

const cli = fileURLToPath(new URL('../../../../dist/analyzer/cli/main.js', import.meta.url));

describe('afterstop demo (the built CLI, as npm start runs it)', () => {
  it('writes traces to --traces-dir and exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-cli-demo-'));
    try {
      const out = spawnSync(process.execPath, [cli, 'demo', '--traces-dir', dir], { encoding: 'utf8', timeout: 60_000 });
      expect(out.status).toBe(0);
      expect(out.stdout).toContain('ghost commit: send_email');
      const read = await readTraces(dir);
      expect(read.skipped).toEqual([]);
      expect(read.spans.filter((s) => s.name === 'afterstop.cancel.request')).toHaveLength(2);
      expect(new Set(read.spans.map((s) => s.resource['service.name']))).toEqual(new Set(['afterstop-demo']));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('afterstop (usage)', () => {
  it('prints its version, and exits 2 with help on stderr for no or an unknown command', () => {
    const version = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')).version);
    const none = spawnSync(process.execPath, [cli], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('Usage: afterstop');
    expect(none.stdout).toBe('');
    const bogus = spawnSync(process.execPath, [cli, 'bogus'], { encoding: 'utf8' });
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain("unknown command 'bogus'");
  });
});
