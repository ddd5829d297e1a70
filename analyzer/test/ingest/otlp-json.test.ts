import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeAnyValue, readOtlpJsonLines, readTraces } from '../../index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-read-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const request = (spanId: string, intValue: string | number) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'afterstop' },
            spans: [
              {
                traceId: '00000000000000000000000000000001',
                spanId,
                parentSpanId: '',
                name: 'afterstop.cancel.request',
                kind: 1,
                startTimeUnixNano: '1790000000000000001',
                endTimeUnixNano: '1790000000000000001',
                attributes: [
                  { key: 'afterstop.inflight.tool_calls', value: { intValue } },
                  { key: 'ids', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
                ],
                status: { code: 2, message: 'x' },
              },
            ],
          },
        ],
      },
    ],
  });

describe('reading OTLP/JSON lines', () => {
  it('flattens spans with nanosecond bigint times, decoding intValue given as string or number', async () => {
    const file = path.join(dir, 'a.jsonl');
    fs.writeFileSync(file, `${request('0000000000000002', '3')}\n\n${request('0000000000000003', 4)}\n`);
    const read = await readOtlpJsonLines(file);
    expect(read.skipped).toEqual([]);
    expect(read.lines).toBe(2);
    expect(read.spans.map((s) => s.attributes['afterstop.inflight.tool_calls'])).toEqual([3, 4]);
    expect(read.spans[0]!.startNs).toBe(1790000000000000001n);
    expect(read.spans[0]!.attributes['ids']).toEqual(['a', 'b']);
    expect(read.spans[0]!.resource['service.name']).toBe('svc');
    expect(read.spans[1]!.line).toBe(3);
    expect(read.spans[0]!.statusCode).toBe(2);
  });

  it('names the file and line of what it cannot read, and reads the rest', async () => {
    const file = path.join(dir, 'b.jsonl');
    fs.writeFileSync(file, `${request('0000000000000004', 1)}\n{"resourceSpans": [trunc\n{"hello":1}\n${request('0000000000000005', 1)}`);
    const read = await readOtlpJsonLines(file);
    expect(read.spans.map((s) => s.spanId)).toEqual(['0000000000000004', '0000000000000005']);
    expect(read.skipped.map((s) => [s.file, s.line])).toEqual([
      [file, 2],
      [file, 3],
    ]);
    expect(read.skipped[1]!.reason).toMatch(/resourceSpans/);
  });

  it('reads every .jsonl of a folder', async () => {
    const read = await readTraces(dir);
    expect(read.spans).toHaveLength(4);
    expect(read.skipped).toHaveLength(2);
  });

  it('keeps integers beyond 2^53 exact', () => {
    expect(decodeAnyValue({ intValue: '9007199254740993' })).toBe(9007199254740993n);
    expect(decodeAnyValue({ doubleValue: 0.5 })).toBe(0.5);
    expect(decodeAnyValue({ kvlistValue: { values: [{ key: 'k', value: { boolValue: true } }] } })).toEqual({ k: true });
  });
});
