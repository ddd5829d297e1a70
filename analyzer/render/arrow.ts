import { Bool, Float64, Int64, Schema, Table, TimestampMillisecond, Utf8, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import type { Figures, LeakReport } from '../types.js';

/**
 * The report's tables as Arrow IPC files, for notebooks (pandas
 * `pyarrow.ipc.open_file(...).read_pandas()`, polars `pl.read_ipc`):
 * - groups: one row per service, agent and framework, and a total row
 *   (`is_total`), every figure a column (nested figures joined with `_`:
 *   `cancel_ack_ms_p95`, `tokens_after_stop_output`, `cancel_depth_4`; a list of names one text column,
 *   comma-separated: `uninstrumented_packages`);
 * - findings: one row per finding.
 * The groups file's schema metadata holds `afterstop.evidence.status` and `afterstop.evidence.note` (the report's
 * `evidence`: a report over no run says so).
 * Counts are Int64; dollars and milliseconds Float64.
 */
export interface ArrowReport {
  groups: Uint8Array;
  findings: Uint8Array;
}

type Flat = Record<string, string | number | boolean | null>;

function flatten(value: object, prefix = '', into: Flat = {}): Flat {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix === '' ? key : `${prefix}_${key}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as object, name, into);
    else if (!Array.isArray(v)) into[name] = v as string | number | boolean | null;
    // A list of names (uninstrumented.packages) is one text column, comma-separated.
    else if (v.every((e) => typeof e === 'string')) into[name] = v.join(',');
  }
  return into;
}

/** Dollars and latencies are fractional; every other figure is a count. */
const isFloat = (column: string): boolean => /usd|_ms_(p50|p95|p99|max)$/.test(column);

function figureColumns(rows: Flat[]): Record<string, Vector> {
  const names = Object.keys(rows[0] ?? {});
  const columns: Record<string, Vector> = {};
  for (const name of names) {
    const values = rows.map((r) => r[name] ?? null);
    if (name === 'service' || name === 'agent' || name === 'framework' || name === 'uninstrumented_packages') columns[name] = vectorFromArray(values as (string | null)[], new Utf8());
    else if (name === 'is_total') columns[name] = vectorFromArray(values as boolean[], new Bool());
    else if (isFloat(name)) columns[name] = vectorFromArray(values as (number | null)[], new Float64());
    else
      columns[name] = vectorFromArray(
        values.map((v) => (v === null ? null : BigInt(Math.round(Number(v))))),
        new Int64(),
      );
  }
  return columns;
}

export function renderArrow(report: LeakReport): ArrowReport {
  const figures = (f: Figures): Flat => flatten(f);
  const groupRows: Flat[] = [
    ...report.groups.map((g) => {
      const { service, agent, framework, ghost_commits_by_tool: _byTool, tokens_after_stop_by_model: _byModel, ...rest } = g;
      return { service, agent, framework, is_total: false, ...figures(rest) };
    }),
    (() => {
      const { ghost_commits_by_tool: _byTool, tokens_after_stop_by_model: _byModel, cancel_depth_by_framework: _byFramework, ...rest } = report.totals;
      return { service: null, agent: null, framework: null, is_total: true, ...figures(rest) };
    })(),
  ];
  const figuresTable = new Table(figureColumns(groupRows));
  // Nothing read is not nothing found: the groups file says what the report had to judge, in its schema's metadata.
  const metadata = new Map([
    ['afterstop.evidence.status', report.evidence.status],
    ['afterstop.evidence.note', report.evidence.note ?? ''],
  ]);
  const groups = new Table(new Schema(figuresTable.schema.fields, metadata), figuresTable.batches);

  const f = report.findings;
  const findings = new Table({
    kind: vectorFromArray(
      f.map((x) => x.kind),
      new Utf8(),
    ),
    severity: vectorFromArray(
      f.map((x) => BigInt(x.severity)),
      new Int64(),
    ),
    time: vectorFromArray(
      f.map((x) => Date.parse(x.time)),
      new TimestampMillisecond(),
    ),
    trace_id: vectorFromArray(
      f.map((x) => x.trace_id),
      new Utf8(),
    ),
    run_id: vectorFromArray(
      f.map((x) => x.run_id),
      new Utf8(),
    ),
    conversation_id: vectorFromArray(
      f.map((x) => x.conversation_id),
      new Utf8(),
    ),
    tool: vectorFromArray(
      f.map((x) => x.tool),
      new Utf8(),
    ),
    detail: vectorFromArray(
      f.map((x) => x.detail),
      new Utf8(),
    ),
  });
  return { groups: tableToIPC(groups, 'file'), findings: tableToIPC(findings, 'file') };
}

/** The findings file beside the groups file: `report.arrow` → `report.findings.arrow`. */
export function findingsPath(groupsPath: string): string {
  return groupsPath.endsWith('.arrow') ? `${groupsPath.slice(0, -'.arrow'.length)}.findings.arrow` : `${groupsPath}.findings.arrow`;
}
