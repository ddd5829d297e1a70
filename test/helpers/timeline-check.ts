import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'vitest';
import type { RunTimeline } from '../../analyzer/types.js';
import type { OtlpRequest } from './otlp-json.js';

/**
 * The spans of OTLP/JSON trace files as they were written (read here, not by
 * the analyzer), to check a drawn timeline against: what is drawn must be a
 * span of the run, at the span's own times.
 */
export interface WrittenSpan {
  traceId: string;
  spanId: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
}

const filesOf = (p: string): string[] => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).flatMap((f) => filesOf(path.join(p, f))) : p.endsWith('.jsonl') ? [p] : []);

/** Every span of the .jsonl files under the paths, by `traceId:spanId` (ids lower-case). */
export function writtenSpans(paths: readonly string[]): Map<string, WrittenSpan> {
  const spans = new Map<string, WrittenSpan>();
  for (const file of paths.flatMap(filesOf)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      let request: OtlpRequest;
      try {
        request = JSON.parse(line) as OtlpRequest;
      } catch {
        continue;
      }
      for (const rs of request.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) {
            const traceId = String(s.traceId).toLowerCase();
            const spanId = String(s.spanId).toLowerCase();
            spans.set(`${traceId}:${spanId}`, { traceId, spanId, name: s.name ?? '', startNs: BigInt(s.startTimeUnixNano), endNs: BigInt(s.endTimeUnixNano) });
          }
    }
  }
  return spans;
}

/** ms from the origin, as the timeline holds it. */
const offset = (ns: bigint, origin: bigint): number => Number(ns - origin) / 1e6;

/**
 * Every item of the timeline (and of its next run) is a span of the run's trace, of the kind it is drawn as,
 * at the span's start (and end, for a call); the Stop of a run with markers is its afterstop.cancel.request.
 * Returns how many items were checked.
 */
export function expectTimelineMatchesSpans(t: RunTimeline, spans: Map<string, WrittenSpan>): number {
  const origin = BigInt(t.origin_ns);
  let checked = 0;
  for (const run of t.next_run === null ? [t] : [t, t.next_run]) {
    for (const item of run.items) {
      const span = spans.get(`${run.trace_id}:${item.span_id}`);
      expect(span, `${item.kind} ${item.span_id} of run ${run.run_id} is a span of trace ${run.trace_id}`).toBeDefined();
      if (item.kind === 'service_span') {
        // A service's span (issue 49), on its own clock: drawn where the bound puts it, the span's time minus a δ inside the bound.
        for (const [drawn, written] of [
          [item.start_ms, offset(span!.startNs, origin)],
          [item.end_ms, offset(span!.endNs, origin)],
        ] as const) {
          const b = item.clock_bound_ms;
          if (b === null || b.max === null) expect(drawn).toBeCloseTo(written, 6);
          else {
            expect(written - drawn).toBeLessThanOrEqual(b.max + 1e-6);
            if (b.min !== null) expect(written - drawn).toBeGreaterThanOrEqual(b.min - 1e-6);
          }
        }
        checked++;
        continue;
      }
      expect(item.start_ms).toBeCloseTo(offset(span!.startNs, origin), 6);
      if (item.kind === 'model_call' || (item.kind === 'tool_call' && item.end_ms !== null)) {
        expect(item.end_ms!).toBeCloseTo(offset(span!.endNs, origin), 6);
      }
      if (item.kind === 'commit') expect(span!.name).toBe('afterstop.tool.commit');
      if (item.kind === 'tool_call' && item.end_ms === null) expect(span!.name).toBe('afterstop.tool.start');
      if (item.kind === 'marker') expect(span!.name).toBe(item.name);
      checked++;
    }
  }
  if (t.cancelled && !t.cancel_inferred) {
    const stop = t.items.find((i) => i.kind === 'marker' && i.name === 'afterstop.cancel.request');
    if (stop !== undefined) expect(stop.start_ms).toBe(0);
  }
  return checked;
}
