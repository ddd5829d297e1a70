import { context, defaultTextMapGetter, defaultTextMapSetter, propagation, ROOT_CONTEXT, trace, TraceFlags, type Context, type TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, suppressTracing, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { w3cPropagator } from '../../provider/propagator.js';

/** afterstop's W3C propagator against core's (what NodeTracerProvider.register() installs): the same headers out, the same context in. */
const core = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
const ours = w3cPropagator();

const inject = (propagator: TextMapPropagator, ctx: Context): Record<string, string> => {
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, defaultTextMapSetter);
  return carrier;
};

/** What a context carries that propagation reads back. */
const seen = (ctx: Context) => ({
  span: trace.getSpanContext(ctx) && { ...trace.getSpanContext(ctx), traceState: trace.getSpanContext(ctx)!.traceState?.serialize() },
  baggage: propagation
    .getBaggage(ctx)
    ?.getAllEntries()
    .map(([key, entry]) => [key, entry.value, entry.metadata?.toString()]),
});

const SPAN = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

describe('the W3C propagator', () => {
  it('injects what core injects', () => {
    const contexts: Context[] = [
      ROOT_CONTEXT,
      trace.setSpanContext(ROOT_CONTEXT, { ...SPAN, traceFlags: TraceFlags.SAMPLED }),
      trace.setSpanContext(ROOT_CONTEXT, { ...SPAN, traceFlags: TraceFlags.NONE }),
      trace.setSpanContext(ROOT_CONTEXT, { traceId: '0'.repeat(32), spanId: SPAN.spanId, traceFlags: 1 }),
      suppressTracing(trace.setSpanContext(ROOT_CONTEXT, { ...SPAN, traceFlags: 1 })),
      propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ user: { value: 'ada lovelace' }, 'k,=': { value: 'v;,', metadata: { toString: () => 'p=1' } as never } })),
      propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, { value: 'v'.repeat(60) }])))),
    ];
    const withState = trace.setSpanContext(ROOT_CONTEXT, { ...SPAN, traceFlags: 1 });
    const state = propagation.extract(ROOT_CONTEXT, { traceparent: `00-${SPAN.traceId}-${SPAN.spanId}-01`, tracestate: 'b=2,a=1' }, defaultTextMapGetter);
    contexts.push(withState, state, propagation.setBaggage(state, propagation.createBaggage({ k: { value: 'v' } })));
    for (const ctx of contexts) expect(inject(ours, ctx)).toEqual(inject(core, ctx));
    expect(inject(ours, contexts[1]!)).toEqual({ traceparent: `00-${SPAN.traceId}-${SPAN.spanId}-01` });
    expect(ours.fields()).toEqual(core.fields());
  });

  it('extracts what core extracts, malformed headers included', () => {
    const carriers: Record<string, string | string[]>[] = [
      {},
      { traceparent: `00-${SPAN.traceId}-${SPAN.spanId}-01` },
      { traceparent: ` 00-${SPAN.traceId}-${SPAN.spanId}-00 ` },
      { traceparent: `00-${SPAN.traceId}-${SPAN.spanId}-01-extra` },
      { traceparent: `01-${SPAN.traceId}-${SPAN.spanId}-01-extra` },
      { traceparent: `ff-${SPAN.traceId}-${SPAN.spanId}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${SPAN.spanId}-01` },
      { traceparent: `00-${SPAN.traceId.toUpperCase()}-${SPAN.spanId}-01` },
      { traceparent: [`00-${SPAN.traceId}-${SPAN.spanId}-01`, 'junk'], tracestate: ['a=1', 'b=2,INVALID KEY=3'] },
      { traceparent: `00-${SPAN.traceId}-${SPAN.spanId}-01`, tracestate: 'vendor@sys=x,a=' + 'y'.repeat(300) },
      { baggage: 'a=1,b=two%20words;meta=x;flag, =nokey,c=,%E0%A4%A=bad,d=4' },
      { baggage: ['a=1', 'b=2'] },
      { baggage: Array.from({ length: 200 }, (_, i) => `k${i}=${'v'.repeat(50)}`).join(',') },
    ];
    for (const carrier of carriers) {
      expect(seen(ours.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter)), JSON.stringify(carrier)).toEqual(seen(core.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter)));
    }
    expect(seen(ours.extract(ROOT_CONTEXT, carriers[1]!, defaultTextMapGetter)).span).toMatchObject({ ...SPAN, traceFlags: 1, isRemote: true });
    expect(context.active()).toBe(ROOT_CONTEXT);
  });
});
