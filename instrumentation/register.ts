/**
 * `node --import afterstop/register app.js`: sets up afterstop's tracing
 * pipeline from the environment before the app starts. (The framework
 * auto-instrumentations join this entry point in their own release.)
 * It never stops the app: on failure it logs one line and the app runs
 * uninstrumented.
 */
import { setupPipeline } from './pipeline.js';

try {
  setupPipeline();
} catch (error) {
  console.error(`afterstop: not instrumenting this process: ${error instanceof Error ? error.message : String(error)}`);
}
