import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorCommand } from '../../cli/commands/simulator.js';
import { EFFECT_PARAMETERS } from '../../simulator/effects.js';
import * as api from '../../simulator/index.js';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { findRoute, ROUTES } from '../../simulator/routes.js';
import { DIRECTIVES, parseDirectives } from '../../simulator/script.js';

/**
 * The simulator's reference (docs/simulator.md and `afterstop simulator --help`) against the simulator
 * itself: every directive the parser reads, every route the server serves, every effect parameter,
 * option, ledger field and export must be in both (or in the page, for what the help leaves to it).
 * The lists come from the code: the parser and the server dispatch through DIRECTIVES and ROUTES.
 */
const doc = fs.readFileSync(fileURLToPath(new URL('../../../docs/simulator.md', import.meta.url)), 'utf8');

function help(): string {
  let out = '';
  const command = simulatorCommand(() => {}).configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  command.outputHelp();
  return out;
}

/** A curl line as a fetch against `base`: its method, URL, headers and body. */
function curlRequest(line: string, base: string): { method: string; url: URL; headers: Record<string, string>; body?: string } {
  const url = new URL(/\$SIM(\/[^\s"']*)/.exec(line)![1]!, base);
  const body = /-d '([^']*)'/.exec(line)?.[1];
  const headers = Object.fromEntries([...line.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
  const method = body !== undefined || line.includes('-X POST') ? 'POST' : 'GET';
  return { method, url, headers, ...(body !== undefined ? { body } : {}) };
}

describe('the simulator reference (docs/simulator.md, afterstop simulator --help)', () => {
  const text = help();
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ tokenDelayMs: 0 });
  });
  afterAll(() => sim.close());

  it('lists every directive of the script language, with its summary and an example the parser reads', () => {
    expect(DIRECTIVES.length).toBeGreaterThan(0);
    for (const d of DIRECTIVES) {
      expect(text, d.keyword).toContain(d.syntax);
      expect(text, d.keyword).toContain(d.summary);
      expect(text, d.keyword).toContain(d.example);
      expect(doc, d.keyword).toContain(`\`${d.syntax}\``);
      expect(doc, d.keyword).toContain(`\`${d.example}\``);
      expect(() => parseDirectives(d.example), d.example).not.toThrow();
      // the example uses its directive: without it the message parses differently
      expect(parseDirectives(d.example), d.example).not.toEqual(parseDirectives(d.example.replaceAll(`[[${d.keyword}`, '[[x')));
    }
  });

  it('lists every route, its other paths, and an example that the route answers', async () => {
    for (const route of ROUTES) {
      const name = `${route.method} ${route.path}`;
      expect(text, name).toContain(name);
      expect(text, name).toContain(route.summary);
      expect(text, name).toContain(route.example);
      expect(doc, name).toContain(`\`${name}\``);
      expect(doc, name).toContain(route.example);
      for (const alias of route.aliases) {
        expect(doc, alias).toContain(`\`${alias}\``);
        expect(alias, 'the help says every model route also answers without /v1').toBe(route.path.replace(/^\/v1/, ''));
      }
      const request = curlRequest(route.example, sim.url);
      expect(findRoute(request.method, request.url.pathname)?.route, route.example).toBe(route);
      const res = await fetch(request.url, request);
      await res.text();
      expect(res.status, route.example).toBe(200);
    }
    expect(sim.ledger.effects.map((e) => e.outcome)).toEqual(['committed']);
  });

  it('lists every parameter of an effect request', () => {
    for (const p of EFFECT_PARAMETERS) {
      expect(text, p.name).toContain(p.syntax);
      expect(text, p.name).toContain(p.summary);
      expect(doc, p.name).toContain(`\`${p.syntax}\``);
    }
  });

  it('documents every option of the command', () => {
    const options = simulatorCommand(() => {}).options.map((o) => o.long!);
    expect(options.length).toBeGreaterThan(0);
    for (const long of options) expect(doc, long).toMatch(new RegExp(`\`${long}( <[a-z]+>)?\``));
  });

  it('documents every field of the ledger a request and an effect write', async () => {
    await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: '[[tokens:x]]' }] }),
    });
    const ledger = (await (await fetch(`${sim.url}/ledger`)).json()) as api.LedgerJSON;
    const fields = new Set([...Object.keys(ledger), ...ledger.modelRequests.flatMap(Object.keys), ...ledger.effects.flatMap(Object.keys)]);
    expect(fields).toContain('error'); // the refused request above
    expect(fields).toContain('toolResultIds');
    for (const field of fields) expect(doc, field).toContain(`\`${field}\``);
  });

  it('documents every export of @afterstop/analyzer/simulator', () => {
    const exports = Object.keys(api);
    expect(exports).toContain('startSimulator');
    for (const name of exports) expect(doc, name).toContain(`\`${name}`);
  });
});
