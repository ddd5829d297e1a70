import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as semconv from '../semconv.js';

/** The span contract, as the project keeps a copy of it (docs/spec/SEMCONV.md). */
const spec = fs.readFileSync(new URL('../../docs/spec/SEMCONV.md', import.meta.url), 'utf8');
const specNames = new Set([...spec.matchAll(/`((?:afterstop|gen_ai|process|error|http|server|mcp|jsonrpc|network|url|db|messaging|service|host)\.[a-z0-9_.]+)[` ]/g)].map((m) => m[1]!));
// An attribute's value named as a constant (`request_lost`): the spec names it in backticks, alone or as `name = value`.
const specValues = new Set([...spec.matchAll(/(?:`|= )([a-z0-9_]+)`/g)].map((m) => m[1]!));
// Attribute, span and (live) metric names.
const values = Object.entries(semconv).filter(([key]) => key.startsWith('ATTR_') || key.startsWith('SPAN_') || key.startsWith('METRIC_'));

describe('semconv.ts against SEMCONV.md', () => {
  it('names nothing the spec does not name', () => {
    const unknown = values.filter(
      ([, value]) => !specNames.has(String(value)) && !(!String(value).includes('.') && specValues.has(String(value))) && String(value) !== 'service.name' && String(value) !== 'gen_ai.response.model',
    );
    expect(unknown).toEqual([]);
  });

  it('has every afterstop.* name of the spec', () => {
    const ours = new Set(values.map(([, value]) => String(value)));
    // `afterstop.*` as a wildcard mention is prose, not a name.
    const missing = [...specNames].filter((name) => name.startsWith('afterstop.') && !ours.has(name));
    expect(missing).toEqual([]);
  });

  it('is schema version 0.1', () => {
    expect(spec).toContain(`schema version ${semconv.SCHEMA_VERSION}`);
  });
});
