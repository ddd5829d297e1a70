import { benchCollectorFaults, benchRefusedExit, FAULTS } from '../collector-faults.js';
import { ratioRow, valueRow } from '../results.js';
import { benchHungCollector, benchStopBurst, benchStopMarkers } from '../stop-burst.js';
import type { Section } from './section.js';

/** The export: an agent loop's pauses and time with collectors in trouble, the exit, bursts of Stops. */
export const EXPORT_SECTIONS: Section[] = [
  {
    name: 'collector-faults',
    async run({ rows, details, progress }) {
      progress('an agent loop exporting to collectors in trouble');
      const faults = await benchCollectorFaults();
      details['collectorFaults'] = faults;
      const healthy = faults.byFault.healthy;
      // The first export runs Node's HTTP client cold (no floor in the app alone): shown against the app, no target.
      rows.push(
        ratioRow(
          {
            id: 'exporter-pause',
            work: `longest event-loop pause, an agent loop exporting over OTLP/HTTP, its first export included (median of ${faults.rounds} × ${faults.runs} runs)`,
            value: healthy.maxLoopDelayMs,
            unit: 'ms',
            baseline: 'the app without afterstop',
            baselineValue: faults.bare.maxLoopDelayMs,
            peakRssMb: healthy.peakRssMb,
          },
          null,
        ),
      );
      rows.push(
        ratioRow(
          {
            id: 'exporter-pause-steady',
            work: `longest event-loop pause, the same loop from its 100th run on (past the first export)`,
            spread: faults.steadyPauseSpread.exporting,
            value: healthy.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'the app without afterstop, from its 100th run on',
            baselineValue: faults.bare.steadyMaxLoopDelayMs,
            peakRssMb: healthy.peakRssMb,
          },
          1.1,
        ),
      );
      rows.push(
        ratioRow(
          {
            id: 'exporter-pause-export-off',
            work: 'longest event-loop pause, the same loop exporting, against afterstop with its export off (OTEL_TRACES_EXPORTER=none: its pipeline off, no span recorded)',
            value: healthy.maxLoopDelayMs,
            unit: 'ms',
            baseline: 'afterstop loaded, its pipeline off',
            baselineValue: faults.exportOff.maxLoopDelayMs,
            peakRssMb: faults.exportOff.peakRssMb,
          },
          null,
        ),
      );
      // The steady pause taken apart, a step at a time: afterstop's own code with its pipeline off
      // (OTEL_TRACES_EXPORTER=none: the API's no-op tracer, no span recorded) against the app alone; its spans
      // recorded and not exported (an SDK the app registered) against that; exporting against the spans recorded.
      // Then the CPU each side spends a run, which the longest stall follows, step by step the same way.
      // Under the chain, the statistic's own floor: the app alone against a loop of its 1 ms timer alone.
      rows.push(
        ratioRow(
          {
            id: 'exporter-pause-steady-app-over-idle',
            work: `longest event-loop pause from the 100th run on, the app without afterstop, against an idle loop: the app's 1 ms timer alone, nothing else (the machine's own stalls)`,
            spread: faults.steadyPauseSpread.bareOverIdle,
            value: faults.bare.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'an idle loop (the 1 ms timer alone), from its 100th run on',
            baselineValue: faults.idle.steadyMaxLoopDelayMs,
            peakRssMb: faults.bare.peakRssMb,
          },
          null,
        ),
        ratioRow(
          {
            id: 'exporter-pause-steady-export-off',
            work: `longest event-loop pause from the 100th run on, afterstop loaded with its export off (OTEL_TRACES_EXPORTER=none: its calls run on the API's no-op tracer, no span recorded)`,
            spread: faults.steadyPauseSpread.exportOff,
            value: faults.exportOff.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'the app without afterstop, from its 100th run on',
            baselineValue: faults.bare.steadyMaxLoopDelayMs,
            peakRssMb: faults.exportOff.peakRssMb,
          },
          null,
        ),
        ratioRow(
          {
            id: 'exporter-pause-steady-recorded-over-export-off',
            work: `longest event-loop pause from the 100th run on, afterstop's spans recorded and not exported (an SDK the app registered, afterstop's export off): the recording's part`,
            spread: faults.steadyPauseSpread.recordedOverOff,
            value: faults.recorded.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'afterstop loaded, its pipeline off, from its 100th run on',
            baselineValue: faults.exportOff.steadyMaxLoopDelayMs,
            peakRssMb: faults.recorded.peakRssMb,
          },
          null,
        ),
        ratioRow(
          {
            id: 'exporter-pause-steady-over-recorded',
            work: `longest event-loop pause from the 100th run on, exporting over OTLP/HTTP, against the spans recorded and not exported: the export's own part`,
            spread: faults.steadyPauseSpread.exportingOverRecorded,
            value: healthy.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'the spans recorded, not exported, from the 100th run on',
            baselineValue: faults.recorded.steadyMaxLoopDelayMs,
            peakRssMb: healthy.peakRssMb,
          },
          null,
        ),
        // The same two sides with Node's V8 worker pool cut to one thread, against the app alone (its pool the
        // default): what V8's background threads (compiling afterstop's code as it turns hot, the GC's helpers)
        // cost the longest stall when they hold the 2 CPUs as the app's timer wakes it.
        ratioRow(
          {
            id: 'exporter-pause-steady-export-off-one-worker',
            work: `longest event-loop pause from the 100th run on, afterstop loaded with its export off, Node's V8 worker pool cut to one thread (--v8-pool-size=1; default 4)`,
            spread: faults.steadyPauseSpread.exportOffOneWorker,
            value: faults.oneWorker.exportOff.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'the app without afterstop, from its 100th run on',
            baselineValue: faults.bare.steadyMaxLoopDelayMs,
            peakRssMb: faults.oneWorker.exportOff.peakRssMb,
          },
          null,
        ),
        ratioRow(
          {
            id: 'exporter-pause-steady-one-worker',
            work: `longest event-loop pause from the 100th run on, exporting over OTLP/HTTP, Node's V8 worker pool cut to one thread (--v8-pool-size=1)`,
            spread: faults.steadyPauseSpread.exportingOneWorker,
            value: faults.oneWorker.exporting.steadyMaxLoopDelayMs,
            unit: 'ms',
            baseline: 'the app without afterstop, from its 100th run on',
            baselineValue: faults.bare.steadyMaxLoopDelayMs,
            peakRssMb: faults.oneWorker.exporting.peakRssMb,
          },
          null,
        ),
        ratioRow(
          {
            id: 'run-cpu-export-off',
            work: 'CPU time of the process (all threads) per run from the 100th run on, afterstop loaded with its export off (no span recorded)',
            value: faults.exportOff.steadyCpuMsPerRun,
            unit: 'ms',
            baseline: 'the app without afterstop',
            baselineValue: faults.bare.steadyCpuMsPerRun,
            peakRssMb: null,
          },
          null,
        ),
        ratioRow(
          {
            id: 'run-cpu-recorded',
            work: 'the same, the spans recorded and not exported (an SDK the app registered, afterstop joining it)',
            value: faults.recorded.steadyCpuMsPerRun,
            unit: 'ms',
            baseline: 'afterstop loaded, its pipeline off',
            baselineValue: faults.exportOff.steadyCpuMsPerRun,
            peakRssMb: null,
          },
          null,
        ),
        ratioRow(
          {
            id: 'run-cpu-exporting',
            work: 'the same, its spans recorded and exported over OTLP/HTTP to a healthy local collector',
            value: healthy.steadyCpuMsPerRun,
            unit: 'ms',
            baseline: 'the spans recorded, not exported',
            baselineValue: faults.recorded.steadyCpuMsPerRun,
            peakRssMb: null,
          },
          null,
        ),
      );
      rows.push(
        ratioRow(
          {
            id: 'collector-healthy',
            work: 'time per run, a healthy collector',
            value: healthy.msPerRun,
            unit: 'ms',
            baseline: 'the app without afterstop',
            baselineValue: faults.bare.msPerRun,
            peakRssMb: healthy.peakRssMb,
          },
          null,
        ),
      );
      for (const f of FAULTS.filter((x) => x !== 'healthy')) {
        const t = faults.byFault[f];
        rows.push(
          ratioRow(
            {
              id: `collector-${f}`,
              work: `time per run, a collector that ${({ '500': 'answers 500', reset: 'resets every connection', hang: 'never answers', down: 'is not there' } as const)[f]} (${t.dropped} spans dropped; median of ${faults.faultRounds})`,
              value: t.msPerRun,
              unit: 'ms',
              baseline: 'a healthy collector',
              baselineValue: healthy.msPerRun,
              peakRssMb: t.peakRssMb,
            },
            null,
          ),
        );
      }
    },
  },
  {
    name: 'collector-exit',
    async run({ rows, details, progress }) {
      progress('exit with a collector that refuses connections');
      const refused = await benchRefusedExit();
      details['refusedExit'] = refused;
      rows.push(
        ratioRow(
          {
            id: 'exit-collector-refused',
            work: `a process's wall time, ${refused.runs} runs Stopped, no shutdown(), a collector that refuses connections (ECONNREFUSED), median of ${refused.rounds}`,
            value: refused.refusedMs,
            unit: 'ms',
            baseline: "the same script, afterstop's export off",
            baselineValue: refused.baselineMs,
            peakRssMb: null,
          },
          null,
        ),
      );
    },
  },
  {
    name: 'stop-burst',
    async run({ rows, details, progress }) {
      progress('a burst of Stops');
      const burst = await benchStopBurst();
      details['stopBurst'] = burst;
      rows.push(
        valueRow(
          {
            id: 'stop-burst',
            work: `spans written, ${burst.runs} concurrent runs Stopped at once, the file exporter`,
            value: burst.spansWritten,
            unit: 'spans',
            baseline: 'spans made',
            baselineValue: burst.spans,
            peakRssMb: null,
          },
          { text: `all ${burst.spans}`, met: (v) => v === burst.spans },
        ),
      );
    },
  },
  {
    name: 'stop-markers',
    async run({ rows, details, progress }) {
      for (const exporter of ['otlp', 'file'] as const) {
        for (const runs of [2_000, 10_000]) {
          progress(`${runs} Stops at once, ${exporter}`);
          const f = await benchStopMarkers(runs, exporter);
          details[`stopMarkers-${exporter}-${runs}`] = f;
          const to = exporter === 'otlp' ? 'a healthy local OTLP/HTTP collector' : 'the file exporter, a healthy disk';
          rows.push(
            valueRow(
              {
                id: `stop-markers-${exporter}-${runs}`,
                work: `Stop markers kept: ${f.stopsKept} of ${f.stops}; ${runs} runs with a tool in flight Stopped in the same tick, ${to} (spans dropped, all kinds: ${f.spansDropped} of ${f.stops + f.others}; failed exports ${f.failedExports})`,
                value: f.stopsKept,
                unit: 'spans',
                baseline: 'Stop markers made',
                baselineValue: f.stops,
                peakRssMb: null,
              },
              { text: `all ${f.stops}`, met: (v) => v === f.stops },
            ),
          );
        }
      }
    },
  },
  {
    name: 'hung-exit',
    async run({ rows, details, progress }) {
      for (const runs of [5_000, 100_000]) {
        progress(`${runs} Stops against a hung collector`);
        const hung = await benchHungCollector(runs);
        details[`hungCollector${runs}`] = hung;
        rows.push(
          ratioRow(
            {
              id: `hung-exit-${runs}`,
              work: `exit after the work, ${runs} runs Stopped, a collector that never answers, no shutdown()`,
              value: hung.exitAfterWorkMs,
              unit: 'ms',
              baseline: "the app's work",
              baselineValue: hung.workMs,
              peakRssMb: null,
            },
            null,
          ),
        );
      }
    },
  },
];
