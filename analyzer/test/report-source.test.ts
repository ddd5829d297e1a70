import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../index.js';
import { analyze } from '../analyze.js';
import { InputError } from '../errors.js';
import { clickhouseReportSource, serverSaid, traceFilesSource } from '../report-source.js';

/** The report sources: one interface for the store and ClickHouse, both on the public analyzer API. */
const golden = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const pricesFile = `${golden}prices.json`;

describe('report sources', () => {
  it('the trace-file source gives the report analyze gives, prices and window mapped in one place', async () => {
    const request = { pricesFile, since: new Date('2020-01-01T00:00:00Z'), budgetMs: 500, findingsLimit: 3 };
    const lines: string[] = [];
    const fromSource = await traceFilesSource({ inputs: [golden], db: ':memory:' }).report({ ...request, progress: (m) => lines.push(m) });
    const direct = await analyze({ inputs: [golden], db: ':memory:', ...request });
    expect(fromSource).toEqual(direct);
    expect(fromSource.prices.source).toBe(`${pricesFile} over @pydantic/genai-prices 0.1.8`);
    expect(fromSource.window.from).toBe('2020-01-01T00:00:00.000Z');
    expect(fromSource.findings.length).toBeLessThanOrEqual(3);
    expect(lines.some((l) => /computing the report/.test(l))).toBe(true);
  });

  it('a ClickHouse that cannot be reached is an input error naming the server by its origin, without user or password', async () => {
    const source = clickhouseReportSource({ url: 'http://reader:s3cret@127.0.0.1:9/', table: 'otel.otel_traces' });
    expect(source.description).toBe('ClickHouse at http://127.0.0.1:9, table otel.otel_traces');
    const error = await source.report({}).catch((e: unknown) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/^ClickHouse at http:\/\/127\.0\.0\.1:9, table otel\.otel_traces: /);
    expect(String((error as Error).message)).not.toContain('s3cret');
  });

  it('both, and the ClickHouse report itself, are on the public analyzer API', () => {
    for (const name of ['traceFilesSource', 'clickhouseReportSource', 'clickhouseReport', 'ClickHouseSource', 'analyze', 'QueryColumnError']) expect(typeof (api as Record<string, unknown>)[name], name).toBe('function');
  });
});

describe('what a server said', () => {
  it('is one line a terminal can show: control characters replaced, cut at 300 characters (the cut said), credentials masked', () => {
    const said = serverSaid(new Error(`Code: 60. DB::Exception: \u001b]8;;http://evil\u0007click\u001b]8;;\u0007 ${'x'.repeat(1000)}\nsecond line`));
    expect(said).not.toMatch(/[\u0000-\u001f]/);
    expect(said).toMatch(/^Code: 60\. .{250,}… \(\d+ more characters not shown\)$/);
    expect([...said.slice(0, said.indexOf('…') + 1)]).toHaveLength(300);
    expect(serverSaid(new Error('Code: 516. Authentication failed; request: Authorization: Basic cmVhZGVyOnB3'))).toBe('Code: 516. Authentication failed; request: Authorization: ***');
  });
});
