/** What the server hands to each route handler. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ledger } from './ledger.js';
import type { TimingDefaults } from './script.js';

/** Per-server counters for ids such as call_1, toolu_1, eff_1. */
export class IdGenerator {
  private readonly counters = new Map<string, number>();

  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}${n}`;
  }
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** When the request arrived (nowNs()). */
  startNs: bigint;
  ledger: Ledger;
  ids: IdGenerator;
  timing: TimingDefaults;
  /** Aborted when the simulator is closing: handlers must stop promptly. */
  shutdown: AbortSignal;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A positive integer, or undefined. */
export function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}
