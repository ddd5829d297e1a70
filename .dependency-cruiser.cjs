/**
 * The boundaries of docs/architecture.md, as rules that fail CI
 * (`npm run deps`, .ci/run). Type-only imports count (tsPreCompilationDeps).
 * One block of rules per part; `forbidden` joins them.
 */

// ─── BEGIN instrumentation rules ─────────────────────────────────────────────
// The instrumentation (instrumentation/): what the app installs. Its core is
// instrumentation/*.ts but for the composition roots, which wire the parts
// together: index.ts (the manual API), register.ts (`--import
// afterstop/register`) and pipeline.ts (the tracer and the export queue).
/** The package's sources: not its tests, not its build. */
const INSTRUMENTATION = '^instrumentation/(?!test/|dist/)';
const INSTRUMENTATION_CORE = '^instrumentation/[^/]+[.]ts$';
const COMPOSITION_ROOTS = '^instrumentation/(index|register|pipeline)[.]ts$';

const instrumentationRules = [
  {
    name: 'instrumentation-core-not-to-guard-internals',
    severity: 'error',
    comment: 'The core reaches the guard through guard/index.ts only (its configuration, the fence, the idempotency keys). ' + "The guard's installation (guard/setup.ts) is the composition roots'.",
    from: { path: INSTRUMENTATION_CORE, pathNot: COMPOSITION_ROOTS },
    to: { path: '^instrumentation/guard/', pathNot: '^instrumentation/guard/index[.]ts$' },
  },
  {
    name: 'instrumentation-core-not-to-export',
    severity: 'error',
    comment: 'The core hands spans to the pipeline (internal-types.ts Pipeline), never to the exporter: export/ is wired in by pipeline.ts. ' + 'Shapes both sides share (DeferredMarker) live in internal-types.ts.',
    from: { path: INSTRUMENTATION_CORE, pathNot: COMPOSITION_ROOTS },
    to: { path: '^instrumentation/export/' },
  },
  {
    name: 'instrumentation-adapters-through-adapter-api',
    severity: 'error',
    comment: 'A framework adapter (auto/) reaches the core through adapter-api.ts only; besides it, it imports other auto/ files and packages.',
    from: { path: '^instrumentation/auto/' },
    to: { path: INSTRUMENTATION, pathNot: '^instrumentation/(auto/|adapter-api[.]ts$)' },
  },
  {
    name: 'instrumentation-not-to-analysis-or-tests',
    severity: 'error',
    comment: 'The instrumentation ships alone: it imports nothing of the analyzer, the simulator, the demo, the scorecard, the benches or the tests.',
    from: { path: INSTRUMENTATION },
    to: { path: ['^(analyzer|demo|scorecard|bench|test)/', '^contract/(?!dist/)'] },
  },
  {
    name: 'instrumentation-not-to-heavy-packages',
    severity: 'error',
    comment:
      'The instrumentation must stay light (no native binary, installed in < 15 MB): no DuckDB, ClickHouse, Arrow, prom-client, commander, ' +
      'and no @opentelemetry/core (it brings @opentelemetry/semantic-conventions, 9.5 MB; the helpers used are in otel-compat.ts).',
    from: { path: INSTRUMENTATION },
    to: { path: '(^|/)node_modules/(@duckdb/|@clickhouse/|apache-arrow/|prom-client/|commander/|@opentelemetry/core/)' },
  },
  {
    name: 'instrumentation-not-to-dev-dep',
    severity: 'error',
    comment: 'What the instrumentation imports at run time is a dependency or an (optional) peer, not a devDependency only (type-only imports excepted).',
    from: { path: INSTRUMENTATION },
    to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only', 'npm-peer'], pathNot: ['node_modules/@types/'] },
  },
  {
    name: 'instrumentation-no-non-package-json',
    severity: 'error',
    comment: 'The instrumentation imports no package missing from package.json.',
    from: { path: INSTRUMENTATION },
    to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
  },
  {
    name: 'instrumentation-no-circular',
    severity: 'error',
    comment: 'No import cycle in the instrumentation (type-only imports count).',
    from: { path: INSTRUMENTATION },
    to: { circular: true },
  },
  {
    name: 'instrumentation-resolvable',
    severity: 'error',
    comment: 'Every import of the instrumentation resolves to a file.',
    from: { path: INSTRUMENTATION },
    to: { couldNotResolve: true },
  },
];
// ─── END instrumentation rules ───────────────────────────────────────────────

// ─── BEGIN analyzer and contract rules ──────────────────────────────────────
// The analyzer (analyzer/) shares only the span contract (contract/) with the instrumentation,
// and a command loads only the engine it uses.
const ENGINES = '(^|/)node_modules/(@duckdb|@clickhouse)/';
const DUCKDB = '(^|/)node_modules/@duckdb/';
/** The modules that hold or open an engine: only report-source.ts and store-source.ts reach them for a command. */
const ENGINE_MODULES = [ENGINES, '^analyzer/(store|store-folder|store-params|store-migration|store-query|span-files|queries|report|report-assembly|analyze|explain|run-timeline)\\.ts$', '^analyzer/(clickhouse|ingest)/'];

const analyzerRules = [
  {
    name: 'analyzer-contract-by-name',
    comment: 'The analyzer imports the span contract as a package (@afterstop/span-contract), never its files.',
    severity: 'error',
    from: { path: '^analyzer/(?!test/|dist/)' },
    to: { path: '^contract/(?!dist/)' },
  },
  {
    name: 'kit-packages-by-name',
    comment: 'The kit (demo, scorecard, bench, docs tools, fixture recorders) uses the packages as a user does: by name, through their exports.',
    severity: 'error',
    from: { path: '^(demo|scorecard|bench|docs-tools|test/fixtures)/' },
    to: { path: '^(instrumentation|analyzer|contract)/(?!dist/)' },
  },
  {
    name: 'analyzer-not-instrumentation',
    comment: 'The analyzer shares only the span contract (contract/) with the instrumentation: it will be another package.',
    severity: 'error',
    from: { path: '^analyzer/(?!test/|dist/)' },
    to: { path: '^instrumentation/' },
  },
  {
    name: 'analyzer-not-opentelemetry',
    comment: 'The analyzer reads spans as data (OTLP/JSON, Tempo blocks, ClickHouse rows); it does not use the OpenTelemetry API or SDK.',
    severity: 'error',
    from: { path: '^analyzer/(?!test/|dist/)' },
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
    to: { path: [DUCKDB, '^analyzer/(store|store-folder|store-params|store-migration|span-files|report|analyze)\\.ts$'], dependencyTypesNot: ['type-only'] },
  },
  {
    name: 'contract-only-node',
    comment: 'The span contract (@afterstop/span-contract) has no dependency: node:* and its own files only.',
    severity: 'error',
    from: { path: '^contract/' },
    to: { pathNot: '^contract/', dependencyTypesNot: ['core'] },
  },
];
// ─── END analyzer and contract rules ────────────────────────────────────────

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [...instrumentationRules, ...analyzerRules],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
