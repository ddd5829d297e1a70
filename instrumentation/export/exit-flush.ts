import type { BoundedBatchSpanProcessor } from './queue.js';

/** Flush what is left when the process ends: async on `beforeExit`, synchronously (file exporter) on `exit`, both on SIGTERM the app does not handle. */
export function hookProcessExit(processor: BoundedBatchSpanProcessor, flushTimeoutMs: number): () => void {
  // Once, and for at most flushTimeoutMs: the exporter's own sockets and timers never keep the process
  // alive, so a collector that hangs or is down cannot hold the app's exit; a timer holds it while the
  // last flush runs. What it could not send stays counted as not exported.
  let flushedAtExit = false;
  const onBeforeExit = (): void => {
    // A collector whose last answer was a failure (refused, timed out) gets no last try: the exporter
    // retries each export for up to its timeout on timers that hold the process (17 s after the work
    // for 5,000 runs against a closed port). What is queued stays counted as queued.
    if (flushedAtExit || processor.stats().queued === 0 || processor.collectorFailing()) return;
    flushedAtExit = true;
    const hold = setTimeout(() => {}, flushTimeoutMs);
    void processor.flushAtExit(flushTimeoutMs).finally(() => clearTimeout(hold));
  };
  const onExit = (): void => processor.flushSync();
  // SIGTERM (a stdio MCP server its client closes, a container stopped) ends the process without 'exit': when
  // the app has no handler of its own, what is queued is flushed first (at most flushTimeoutMs), then the
  // signal is raised again, so that the process ends by it as it would have. With a handler of the app's,
  // the app decides; its exit flushes at 'exit'.
  const onSigterm = (): void => {
    if (process.listenerCount('SIGTERM') > 1) return;
    process.off('SIGTERM', onSigterm);
    let raised = false;
    const raise = (): void => {
      if (raised) return;
      raised = true;
      // What the bounded flush left (a collector that hung, lines still waiting for the disk): written now if the exporter can.
      processor.flushSync();
      process.kill(process.pid, 'SIGTERM');
    };
    if (processor.collectorFailing()) return raise();
    void processor.flushAtExit(flushTimeoutMs).finally(raise);
  };
  process.on('beforeExit', onBeforeExit);
  process.on('exit', onExit);
  process.on('SIGTERM', onSigterm);
  return () => {
    process.off('beforeExit', onBeforeExit);
    process.off('exit', onExit);
    process.off('SIGTERM', onSigterm);
  };
}
