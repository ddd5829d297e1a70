/**
 * The packages the app loaded that afterstop knows of and does not instrument (auto/uninstrumented-packages.ts
 * lists them; auto/watch-uninstrumented.ts notes them as the app loads them). Every run of the process names
 * them on its run span (afterstop.run.uninstrumented), so that the report says its figures are lower bounds.
 */

const loaded = new Set<string>();
let joined: string | undefined;
/** Where the code of a loaded framework that writes its own GenAI spans lives, as a stack frame shows it. */
const ownSpanDirs: string[] = [];

/**
 * Note a package as loaded (once; never throws). `ownSpans`: it writes its own OpenTelemetry GenAI spans
 * (a run, its tool and model calls), which the analyzer reads as a run of its own.
 */
export function noteUninstrumented(name: string, ownSpans = false): void {
  if (loaded.has(name)) return;
  loaded.add(name);
  joined = [...loaded].sort().join(',');
  if (ownSpans) ownSpanDirs.push(`/node_modules/${name}/`);
}

/** The packages loaded so far, sorted and comma-separated (afterstop.run.uninstrumented); undefined when none. */
export const uninstrumentedLoaded = (): string | undefined => joined;

/** Frames enough to see past the model client and the app's own adapter to the framework that called them. */
const STACK_FRAMES = 64;

/**
 * Is the calling code run by a loaded framework that writes its own GenAI spans (Google ADK, Strands)? Its
 * model calls are in its own spans: a model call made through an instrumented client (openai,
 * @anthropic-ai/sdk) outside any afterstop run is then not made a run of its own, which would count the
 * framework's turn twice. Free until such a framework is loaded; then one stack capture per model call.
 */
export function calledByFrameworkWithOwnSpans(): boolean {
  if (ownSpanDirs.length === 0) return false;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = STACK_FRAMES;
  let stack: string;
  try {
    // String(): an app's Error.prepareStackTrace may give something else than text.
    stack = String(new Error().stack ?? '');
  } finally {
    Error.stackTraceLimit = limit;
  }
  return ownSpanDirs.some((dir) => stack.includes(dir));
}
