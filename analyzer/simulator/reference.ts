/** The simulator's reference in plain text (`afterstop simulator --help`), rendered from its own lists. */
import { EFFECT_PARAMETERS } from './effects.js';
import { ROUTES } from './routes.js';
import { DIRECTIVES } from './script.js';

function table(rows: readonly (readonly [string, string, string?])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.flatMap(([left, summary, example]) => [`  ${left.padEnd(width)}  ${summary}`, ...(example ? [`  ${''.padEnd(width)}  e.g. ${example}`] : [])]);
}

/** Directives, routes and effect parameters, each with its one-line summary and an example. */
export function simulatorReference(): string {
  return [
    'Script directives (written in the last user message; the model answers what they say):',
    ...table(DIRECTIVES.map((d) => [d.syntax, d.summary, d.example])),
    '',
    'Routes (every model route also answers without /v1; $SIM is the printed URL):',
    ...table(ROUTES.map((r) => [`${r.method} ${r.path}`, r.summary, r.example])),
    '',
    'Effect requests (POST /effects/:name) are shaped by:',
    ...table(EFFECT_PARAMETERS.map((p) => [p.in === 'query' ? `?${p.syntax}` : p.syntax, p.summary])),
    '',
    'The ledger (GET /ledger, or .ledger of startSimulator() from @afterstop/analyzer/simulator) is the ground truth:',
    'what each model request generated (billed) and sent, and when each effect committed. Reference and an',
    'example agent: docs/simulator.md.',
  ].join('\n');
}
