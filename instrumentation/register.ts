/**
 * `node --import afterstop/register app.js` (or, in CommonJS,
 * `require('afterstop/register')` first): sets up afterstop's tracing
 * pipeline from the environment before the app starts, and enables the
 * auto-instrumentations (AFTERSTOP_INSTRUMENTATIONS, default all; see
 * auto/registry.ts). ESM apps need `--import`: a static import runs after the
 * app's other imports are loaded.
 * It watches for the agent frameworks, agent SDKs and MCP clients afterstop
 * does not instrument (auto/uninstrumented-packages.ts) and names them.
 * It never stops the app: on failure it logs one line and the app runs
 * uninstrumented.
 */
import { enabledInstrumentations, enableInstrumentations, modulesOf } from './auto/registry.js';
import { hookModules } from './auto/esm-hook.js';
import { setupPipeline } from './pipeline.js';
import { watchUninstrumented } from './auto/watch-uninstrumented.js';

try {
  // Name, when the app loads one, a framework, agent SDK or MCP client afterstop does not instrument.
  watchUninstrumented();
  const names = enabledInstrumentations();
  if (names.length > 0) {
    // The ESM loader hook (import-in-the-middle, as OpenTelemetry's instrumentations use it), for the patched packages only.
    hookModules(modulesOf(names));
  }
  setupPipeline();
  enableInstrumentations(names);
} catch (error) {
  console.error(`afterstop: not instrumenting this process: ${error instanceof Error ? error.message : String(error)}`);
}
