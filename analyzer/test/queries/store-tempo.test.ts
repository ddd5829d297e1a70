import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import type { Store } from '../../store.js';
import { writeTempoBlock } from '../../../test/helpers/tempo-block.js';
import { listValue, ns, openStore, sqlRows, traces } from '../../../test/helpers/trace-builder.js';

/**
 * store-tempo-v4.sql and store-tempo-v5.sql: a Tempo block's spans into the
 * store with the columns store-files.sql gives the same spans, the attributes
 * Tempo took out of Attrs (well-known and dedicated columns) put back.
 */
let store: Store;
let nextIngest = 1;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-tempo-q-'));
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const COLUMNS =
  'trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, service, scope, role, run_id, tool_call_id, result, repair_call_ids, exception_text, has_http, is_cancellation';

async function stored(sql: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const id = nextIngest++;
  await store.run(query(sql), { ...params, ingest_id: id } as never);
  return sqlRows(store, `SELECT ${COLUMNS} FROM spans WHERE ingest_id = ${id} ORDER BY span_id`);
}

function scenario(): string {
  const t = traces();
  const r = t.run({ conversation: 'c1', service: 'svc-a', startMs: 0, endMs: 900, outcome: 'cancelled' });
  r.tool({
    name: 'send_email',
    callId: 'k1',
    startMs: 10,
    endMs: 400,
    result: 'cancelled',
    status: { code: 'error', message: 'aborted' },
    exceptions: [{ type: 'AbortError', message: 'The operation was aborted' }],
    attrs: { 'http.method': 'POST', 'http.status_code': 202 },
  });
  r.repair(500, ['k1', 'k2']);
  return t.write();
}

describe('store-tempo', () => {
  it('vParquet4: the spans store-files gives, http columns and dedicated String01.. put back under their names', async () => {
    const file = scenario();
    const json = await stored('store-files', { files: listValue([file]), compression: 'uncompressed', source: null, max_object_bytes: 16_777_216n });
    const block = await writeTempoBlock(tmp, [file], { version: 'vParquet4', dedicatedSpan: ['gen_ai.tool.call.id', 'afterstop.run.id'] });
    const data = path.join(block, 'data.parquet');
    const dedicated = ['gen_ai.tool.call.id', 'afterstop.run.id', ...Array.from({ length: 8 }, () => null)];
    const tempo = await stored('store-tempo-v4', { file: data, span_dedicated: listValue(dedicated) });
    expect(tempo).toEqual(json);
    // The block did hold them in Tempo's columns, not in Attrs.
    const [moved] = await sqlRows(
      store,
      `SELECT sp.HttpMethod AS m, sp.HttpStatusCode AS c, sp.DedicatedAttributes.String01 AS d, len(list_filter(sp.Attrs, a -> a."Key" IN ('http.method', 'gen_ai.tool.call.id'))) AS left_in_attrs FROM tempo_spans('${data}') WHERE sp.HttpMethod IS NOT NULL`,
    );
    expect(moved).toEqual({ m: 'POST', c: 202, d: 'k1', left_in_attrs: 0 });
    expect(tempo.find((s) => s['tool_call_id'] === 'k1')).toMatchObject({ is_cancellation: true, exception_text: 'The operation was aborted', start_ns: ns(10) });
    expect(tempo.find((s) => s['name'] === 'afterstop.history.repair')?.['repair_call_ids']).toEqual(['k1', 'k2']);
  });

  it('vParquet5: dedicated columns as lists, only those in use, or as scalars (the early previews); none at all reads too', async () => {
    const file = scenario();
    const json = await stored('store-files', { files: listValue([file]), compression: 'uncompressed', source: null, max_object_bytes: 16_777_216n });
    const withColumns = await writeTempoBlock(tmp, [file], { version: 'vParquet5', dedicatedSpan: ['afterstop.tool.result'] });
    expect(await stored('store-tempo-v5', { file: path.join(withColumns, 'data.parquet'), span_dedicated: listValue(['afterstop.tool.result']), span_dedicated_int: listValue([]) })).toEqual(json);
    const preview = await writeTempoBlock(tmp, [file], { version: 'vParquet5', dedicatedSpan: ['afterstop.tool.result'], previewScalars: true });
    expect(await stored('store-tempo-v5', { file: path.join(preview, 'data.parquet'), span_dedicated: listValue(['afterstop.tool.result']), span_dedicated_int: listValue([]) })).toEqual(json);
    const without = await writeTempoBlock(tmp, [file], { version: 'vParquet5' });
    expect(await stored('store-tempo-v5', { file: path.join(without, 'data.parquet'), span_dedicated: listValue([]), span_dedicated_int: listValue([]) })).toEqual(json);
  });
});
