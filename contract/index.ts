/**
 * afterstop's span contract: the span and attribute names, the schema version,
 * and where traces are written by default. The one thing the instrumentation and
 * the analyzer share; it imports nothing but `node:*`.
 */
export * from './semconv.js';
export * from './traces-dir.js';
