import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Session } from 'chdb';
import { otelTracesRows } from './otel-traces.js';

/**
 * ClickHouse's HTTP interface in front of the ClickHouse engine embedded
 * (chdb): what `leak-report --clickhouse URL` talks to, for the tests (a
 * ClickHouse server new enough for the leak model's SQL is not among Debian's
 * packages). The engine is real; the HTTP part is the small piece of the
 * protocol @clickhouse/client speaks: the SQL in the POST body (FORMAT at its
 * end for a query), `param_*` query parameters, settings as URL parameters
 * (SET in the session before the statement), an error as HTTP 500 with
 * X-ClickHouse-Exception-Code and ClickHouse's message. One session for all
 * requests (chdb holds one per process), so temporary tables live across them.
 */
const DDL = fs.readFileSync(fileURLToPath(new URL('../fixtures/clickhouse/otel_traces.sql', import.meta.url)), 'utf8');
const NOT_SETTINGS = new Set(['query_id', 'session_id', 'database', 'query', 'default_format', 'role', 'session_timeout', 'session_check']);

export interface ClickHouseHttp {
  url: string;
  /** Statements the server ran, in order, and whether each sent rows back (for tests that check what left the database). */
  statements: { sql: string; rows: boolean }[];
  close: () => Promise<void>;
}

export async function clickhouseHttp(tables: Record<string, { files: string[]; spelling?: 'new' | 'old' }>): Promise<ClickHouseHttp> {
  const session = new Session();
  session.query('CREATE DATABASE IF NOT EXISTS otel');
  for (const [table, { files, spelling }] of Object.entries(tables)) {
    session.query(DDL.replace('CREATE TABLE IF NOT EXISTS otel.otel_traces', `CREATE TABLE IF NOT EXISTS otel.${table}`));
    const rows = otelTracesRows(files, spelling)
      .map((r) => JSON.stringify(r))
      .join('\n');
    session.query(`INSERT INTO otel.${table} FORMAT JSONEachRow ${rows}`);
  }
  const statements: { sql: string; rows: boolean }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let sql = (url.searchParams.get('query') ?? '') + body;
      const params: Record<string, string | null> = {};
      try {
        for (const [key, value] of url.searchParams) {
          if (key.startsWith('param_')) params[key.slice('param_'.length)] = value === '\\N' ? null : value;
          else if (!NOT_SETTINGS.has(key) && /^\w+$/.test(key) && /^[\w.]+$/.test(value)) session.query(`SET ${key} = ${/^\d+$/.test(value) ? value : `'${value}'`}`);
        }
        const format = /\s+FORMAT\s+(\w+)\s*$/i.exec(sql)?.[1];
        if (format !== undefined) sql = sql.replace(/\s+FORMAT\s+\w+\s*$/i, '');
        statements.push({ sql, rows: format !== undefined });
        const out = Object.keys(params).length > 0 ? session.queryBind(sql, params, format ?? 'CSV') : session.query(sql, format ?? 'CSV');
        res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-format': format ?? 'CSV' });
        res.end(format === undefined ? '' : out);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const code = /Code: (\d+)/.exec(message)?.[1] ?? '1000';
        res.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': code });
        res.end(message.includes('Code:') ? message : `Code: ${code}. DB::Exception: ${message}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    statements,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      session.close();
    },
  };
}
