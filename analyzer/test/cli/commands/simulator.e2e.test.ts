import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../../../../test/helpers/cli.js';
import { EFFECT_PARAMETERS } from '../../../simulator/effects.js';
import { ROUTES } from '../../../simulator/routes.js';
import { DIRECTIVES } from '../../../simulator/script.js';

const cli = cliPath;

describe('afterstop simulator', () => {
  it('prints its URL, serves the model and effect routes, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, 'simulator', '--port', '0', '--token-delay', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const url = chunk.toString().trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi [[tokens:3]]' }] }),
    });
    expect(((await answer.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(3);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('rejects a port that is not one, with exit code 2', async () => {
    const child = spawn(process.execPath, [cli, 'simulator', '--port', '70000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain('not a port number');
  });

  it('--help, as installed, lists every directive, route and effect parameter of the simulator', async () => {
    const out = await runCli(['simulator', '--help']);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.split('\n');
    for (const d of DIRECTIVES)
      expect(
        lines.some((l) => l.includes(d.syntax) && l.includes(d.summary)),
        d.syntax,
      ).toBe(true);
    for (const r of ROUTES) expect(out.stdout).toContain(`${r.method} ${r.path}`);
    for (const p of EFFECT_PARAMETERS) expect(out.stdout).toContain(p.syntax);
    expect(out.stdout).toContain('docs/simulator.md');
  });
});
