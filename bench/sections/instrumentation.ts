import { INSTALL_LIMIT_BYTES, benchInstallSize } from '../install-size.js';
import { benchGuard } from '../guard.js';
import { benchLiveMetrics } from '../live-metrics.js';
import { benchRegisterStartup } from '../register-startup.js';
import { ratioRow, valueRow } from '../results.js';
import { benchSdkStream } from '../sdk-stream.js';
import { benchToolCall } from '../tool-call.js';
import type { Section } from './section.js';

/** The instrumentation in the app's process: a tool call (its floor, the live metrics, the guard), a streamed model call, startup, install size. */
export const INSTRUMENTATION_SECTIONS: Section[] = [
  {
    name: 'tool-call',
    async run({ rows, details, progress }) {
      progress('one tool call');
      const tool = await benchToolCall();
      details['toolCall'] = tool;
      for (const [id, f, what] of [
        ['tool-call', tool.hotPath, 'cost to the caller'],
        ['tool-call-with-export', tool.withExport, 'with the export of its spans'],
      ] as const) {
        // Against the contract's floor: afterstop's own code over a bare span carrying what SEMCONV.md requires of a tool span.
        rows.push(
          ratioRow(
            {
              id,
              work: `one tool call, run.tool(), ${what} (median of ${tool.rounds} × ${tool.iterations})`,
              value: f.afterstopNs,
              unit: 'ns',
              baseline: 'the contract floor: a bare span with the attributes SEMCONV.md requires of a tool span',
              baselineValue: f.contractSpanNs,
              peakRssMb: null,
            },
            1.1,
          ),
        );
        // The floor itself, against a bare span of three attributes: what the contract costs, whoever writes the span.
        rows.push(
          ratioRow(
            {
              id: `${id}-contract-floor`,
              work: `the same, the contract floor (a bare span with the attributes SEMCONV.md requires of a tool span, no afterstop code)`,
              value: f.contractSpanNs,
              unit: 'ns',
              baseline: 'a bare OpenTelemetry span',
              baselineValue: f.bareSpanNs,
              peakRssMb: null,
            },
            null,
          ),
        );
      }
    },
  },
  {
    name: 'live-metrics',
    async run({ rows, details, progress }) {
      progress('one tool call with the live metrics on and off');
      const live = await benchLiveMetrics();
      details['liveMetrics'] = live;
      rows.push(
        ratioRow(
          {
            id: 'tool-call-live-metrics',
            work: `one tool call, run.tool(), a MeterProvider registered (the live metrics on), median of ${live.rounds} × ${live.iterations}`,
            spread: live.toolCall.spread,
            value: live.toolCall.onNs,
            unit: 'ns',
            baseline: 'the same call, no MeterProvider',
            baselineValue: live.toolCall.offNs,
            peakRssMb: null,
          },
          1.05,
        ),
      );
      rows.push(
        ratioRow(
          {
            id: 'tool-call-live-metrics-stopped',
            work: 'the same, a tool call of a stopped run ending late (an orphaned call recorded)',
            value: live.stoppedToolCall.onNs,
            unit: 'ns',
            baseline: 'the same call, no MeterProvider',
            baselineValue: live.stoppedToolCall.offNs,
            peakRssMb: null,
          },
          null,
        ),
      );
    },
  },
  {
    name: 'guard',
    async run({ rows, details, progress }) {
      progress('one tool call with a side effect, the guard on and off');
      const guardLoopback = await benchGuard(1_000, 11, 0);
      const guardService = await benchGuard(300, 11, 2);
      details['guard'] = { loopback: guardLoopback, service: guardService };
      for (const [r, target] of [
        [guardLoopback, null],
        [guardService, 1.05],
      ] as const) {
        const where = r.replyDelayMs === 0 ? 'a local service answering at once (the guard laid bare)' : `a local service answering in ${r.replyDelayMs} ms (a fast real one)`;
        for (const [via, f] of [
          ['fetch', r.fetch],
          ['node:http', r.http],
        ] as const) {
          rows.push(
            ratioRow(
              {
                id: `tool-call-guard-${via === 'fetch' ? 'fetch' : 'http'}${r.replyDelayMs === 0 ? '-loopback' : ''}`,
                work: `one tool call POSTing through ${via} to ${where}, the guard on (commit fence, an idempotency key added: ${r.keyed.withKey} of ${r.keyed.whileOn} requests keyed; ${Math.round((f.onNs - f.offNs) / 1000)} µs a call), median of ${r.rounds} × ${r.iterations}`,
                spread: f.spread,
                value: f.onNs,
                unit: 'ns',
                baseline: 'the same call, the guard off',
                baselineValue: f.offNs,
                peakRssMb: null,
              },
              target,
            ),
          );
        }
      }
    },
  },
  {
    name: 'sdk-stream',
    async run({ rows, details, progress }) {
      for (const client of ['openai', 'ai-sdk'] as const) {
        progress(`a streamed ${client} call`);
        const r = await benchSdkStream(client);
        details[client === 'openai' ? 'sdkStream' : 'aiSdkStream'] = r;
        const what = client === 'openai' ? 'a streamed model call of 1,000 chunks, openai client' : 'an AI SDK streamText turn (a tool call, 1,000 chunks)';
        rows.push(ratioRow({ id: `${client}-stream`, work: `${what}, under afterstop/register`, value: r.instrumentedMsPerCall, unit: 'ms', baseline: 'bare', baselineValue: r.bareMsPerCall, peakRssMb: null }, 1.05));
        rows.push(ratioRow({ id: `${client}-stream-cpu`, work: `${what}, client CPU`, value: r.instrumentedCpuMsPerCall, unit: 'ms', baseline: 'bare', baselineValue: r.bareCpuMsPerCall, peakRssMb: null }, null));
      }
    },
  },
  {
    name: 'register-startup',
    async run({ rows, details, progress }) {
      progress('startup under afterstop/register and a bare NodeSDK');
      const startup = await benchRegisterStartup();
      details['registerStartup'] = startup;
      rows.push(
        ratioRow(
          {
            id: 'register-startup',
            work: `node --import afterstop/register -e '' (the file exporter; ${startup.afterstop.modules} module files loaded), wall time, median of ${startup.runs} paired runs`,
            value: startup.afterstop.ms,
            unit: 'ms',
            baseline: `a bare NodeSDK started (no instrumentations, metric readers or log processors; ${startup.bareNodeSdk.modules} module files)`,
            baselineValue: startup.bareNodeSdk.ms,
            peakRssMb: null,
          },
          1.1,
        ),
      );
      rows.push(
        ratioRow(
          {
            id: 'register-startup-cpu',
            work: `the same, CPU time of the process (all threads), median of ${startup.runs} paired runs`,
            value: startup.afterstop.cpuMs,
            unit: 'ms',
            baseline: 'a bare NodeSDK started',
            baselineValue: startup.bareNodeSdk.cpuMs,
            peakRssMb: null,
          },
          null,
        ),
      );
    },
  },
  {
    name: 'install-size',
    async run({ rows, details, progress }) {
      progress('the packed instrumentation installed into a fresh project (npm, from the registry)');
      const install = benchInstallSize();
      details['installSize'] = install;
      const beside = install.beside
        .filter((b) => b.install.length > 1)
        .map((b) => `${b.install.slice(1).join(' ')}: ${b.ok ? `resolved, ${b.apiCopies} API` : 'ERESOLVE'}`)
        .join('; ');
      rows.push(
        valueRow(
          {
            id: 'install-size',
            work: `the packed afterstop (with @afterstop/span-contract) installed alone into a fresh project: bytes on disk, ${install.packages} packages, ${install.natives.length} native binaries; beside it without --force: ${beside}`,
            value: install.bytesOnDisk / 1e6,
            unit: 'MB',
            baseline: 'the limit',
            baselineValue: INSTALL_LIMIT_BYTES / 1e6,
            peakRssMb: null,
          },
          { text: `< ${INSTALL_LIMIT_BYTES / 1e6} MB, no native binary, every framework resolved`, met: (v) => v * 1e6 < INSTALL_LIMIT_BYTES && install.natives.length === 0 && install.beside.every((b) => b.ok) },
        ),
      );
    },
  },
];
