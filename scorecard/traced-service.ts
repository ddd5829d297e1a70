import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { appEnv } from './run-app.js';

/**
 * The far side of a tool's request (issue 49): the effect service traced by OpenTelemetry's own Node SDK
 * (test/fixtures/witness/traced-service.mjs) in a process of its own, its wall clock shifted by libfaketime,
 * exporting OTLP/HTTP to a receiver that writes what it gets to a file, as a Collector's file exporter does.
 * The witness tests (test/witness/) and the scorecard's traced-service runs share it.
 */

/** Debian's libfaketime (package `libfaketime`, .ci/run installs it). */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** The service's file, from the project root. */
export const tracedServiceFile = (root: string): string => path.join(root, 'test', 'fixtures', 'witness', 'traced-service.mjs');

/**
 * The environment that runs a process with its wall clock shifted by `shift` (libfaketime's relative offset,
 * `+5s`, `-5s`): Date.now(), performance.timeOrigin and so the OpenTelemetry SDK's span times are shifted; the
 * clock keeps running at its rate. FAKETIME_DONT_FAKE_MONOTONIC=1 leaves CLOCK_MONOTONIC real: with a constant
 * offset Node's timers work either way (checked on Node 24: a 200 ms setTimeout takes 200 ms, shifted +5 s or
 * −5 s, monotonic faked or not), but what a wrong clock on a host is, is a wrong wall clock.
 */
export const clockShift = (shift: string | undefined): Record<string, string> => (shift === undefined ? {} : { LD_PRELOAD: LIBFAKETIME, FAKETIME: shift, FAKETIME_DONT_FAKE_MONOTONIC: '1' });

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resolves once no request is in flight in the service and its spans so far are exported. */
  idle(): Promise<void>;
  /** SIGTERM (the SDK flushes and shuts down), waited on to its exit. */
  stop(): Promise<void>;
  stderr(): string;
}

export interface ServiceOptions {
  root: string;
  simUrl: string;
  /** The OTLP/HTTP endpoint (the receiver); unused when `traced` is false. */
  otlpUrl: string;
  /** Its `service.name` (default `mail-service`). */
  serviceName?: string;
  /** libfaketime's offset for the service's clock (`+5s`, `-5s`). */
  shift?: string;
  /** false: the same service without OpenTelemetry. */
  traced?: boolean;
  /** The file its writes append to. */
  outbox: string;
}

export async function startTracedService(options: ServiceOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [tracedServiceFile(options.root)], {
    cwd: options.root,
    env: appEnv({
      SIM_URL: options.simUrl,
      OUTBOX_FILE: options.outbox,
      TRACED: options.traced === false ? '0' : '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpUrl,
      OTEL_SERVICE_NAME: options.serviceName ?? 'mail-service',
      ...clockShift(options.shift),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = once(child, 'exit').then(() => {
    throw new Error(`the traced service exited before it listened: ${stderr}`);
  });
  const [line] = (await Promise.race([once(child.stdout!.setEncoding('utf8'), 'data'), exited])) as [string];
  const { port } = JSON.parse(line.trim().split('\n')[0]!) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    stderr: () => stderr,
    async idle() {
      await (await fetch(`${url}/idle`)).text();
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = once(child, 'close');
      child.kill('SIGTERM');
      await closed;
    },
  };
}

/** An OTLP/HTTP trace receiver (JSON) that appends each export to `file`, one request a line, before it answers. */
export interface FileReceiver {
  url: string;
  close(): Promise<void>;
}

export async function startFileReceiver(file: string): Promise<FileReceiver> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      try {
        const raw = Buffer.concat(chunks);
        const text = (req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8');
        fs.appendFileSync(file, `${JSON.stringify(JSON.parse(text))}\n`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
