import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { ClickHouseSource } from '../../analyzer/clickhouse/source.js';
import { otelTracesRows, tracesTableDdl, type TracesSchemaName } from './otel-traces.js';

/**
 * ClickHouse embedded (chdb, from npm) behind the same @clickhouse/client the
 * product uses for a server: the exporter's otel_traces table created with
 * its own DDL and loaded with OTLP/JSON trace files. chdb allows one data
 * folder per process; everything here is in memory.
 */
const DDL = fs.readFileSync(fileURLToPath(new URL('../fixtures/clickhouse/otel_traces.sql', import.meta.url)), 'utf8');

export async function chdbWithTraces(
  tables: Record<string, { files: string[]; spelling?: 'new' | 'old'; schema?: TracesSchemaName }>,
): Promise<{ source: (table: string, database?: string) => ClickHouseSource; close: () => Promise<void> }> {
  // chdb's connection is typed against its own copy of @clickhouse/client-common: the same interface, another declaration.
  const client = createClient({ connection: createChdbConnection({ path: ':memory:' }) as never });
  await client.command({ query: 'CREATE DATABASE IF NOT EXISTS otel' });
  for (const [table, { files, spelling, schema }] of Object.entries(tables)) {
    await client.command({ query: `DROP TABLE IF EXISTS otel.${table}` });
    await client.command({ query: tracesTableDdl(DDL, table, schema ?? 'map') });
    await client.insert({ table: `otel.${table}`, values: otelTracesRows(files, spelling, schema), format: 'JSONEachRow' });
  }
  return {
    source: (table, database = 'otel') => new ClickHouseSource(client, { database, table }),
    close: () => client.close(),
  };
}
