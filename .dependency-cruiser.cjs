/**
 * Boundaries dependency-cruiser checks (`npx depcruise --config .dependency-cruiser.cjs analyzer contract`).
 * These are the analyzer's and the span contract's (docs/architecture.md, "Boundaries"); the
 * instrumentation's rules join them in this file.
 */
const ENGINES = '(^|/)node_modules/(@duckdb|@clickhouse)/';
const DUCKDB = '(^|/)node_modules/@duckdb/';
/** The modules that hold or open an engine: only report-source.ts and store-source.ts reach them for a command. */
const ENGINE_MODULES = [
  ENGINES,
  '^analyzer/(store|store-migration|store-query|span-files|queries|report|report-assembly|analyze|explain|run-timeline)\\.ts$',
  '^analyzer/(clickhouse|ingest)/',
];

module.exports = {
  forbidden: [
    {
      name: 'analyzer-not-instrumentation',
      comment: 'The analyzer shares only the span contract (contract/) with the instrumentation: it will be another package.',
      severity: 'error',
      from: { path: '^analyzer/' },
      to: { path: '^instrumentation/' },
    },
    {
      name: 'analyzer-not-opentelemetry',
      comment: 'The analyzer reads spans as data (OTLP/JSON, Tempo blocks, ClickHouse rows); it does not use the OpenTelemetry API or SDK.',
      severity: 'error',
      from: { path: '^analyzer/' },
      to: { path: '(^|/)node_modules/@opentelemetry/' },
    },
    {
      name: 'commands-through-sources',
      comment:
        'A command reaches an engine only through report-source.ts (a report) or store-source.ts (ingest, prune, explain, queries), which load it when asked: a command never loads DuckDB or ClickHouse it does not use.',
      severity: 'error',
      from: { path: '^analyzer/cli/' },
      to: { path: ENGINE_MODULES },
    },
    {
      name: 'sources-load-engines-on-demand',
      comment: 'report-source.ts and store-source.ts load an engine with await import() (a type import is free): importing them loads none.',
      severity: 'error',
      from: { path: '^analyzer/(report-source|store-source)\\.ts$' },
      to: { path: ENGINE_MODULES, pathNot: '^analyzer/(queries|clickhouse/clickhouse-url)\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'clickhouse-path-no-duckdb',
      comment:
        "ClickHouse's report and the engine-neutral report assembly import neither DuckDB, the store nor its span files (a type import is free). Transitively, at run time: test/analyzer/cli/commands/leak-report-clickhouse-engines.test.ts (a reachable rule here would follow type imports too).",
      severity: 'error',
      from: { path: ['^analyzer/clickhouse/', '^analyzer/report-assembly\\.ts$'] },
      to: { path: [DUCKDB, '^analyzer/(store|store-migration|span-files|report|analyze)\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contract-only-node',
      comment: 'The span contract (@afterstop/span-contract) has no dependency: node:* and its own files only.',
      severity: 'error',
      from: { path: '^contract/' },
      to: { pathNot: '^contract/', dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types', 'typings'] },
  },
};
