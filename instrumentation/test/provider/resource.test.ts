import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes as sdkResource, type Resource as SdkResource } from '@opentelemetry/resources';
import type { ReadableSpan as SdkReadableSpan, SpanExporter as SdkSpanExporter, SpanProcessor as SdkSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { detectedResource, resourceFromAttributes } from '../../provider/resource.js';
import type { ReadableSpan, Resource, SpanExporter, SpanProcessor } from '../../provider/sdk-types.js';

/** afterstop's resource against the one the SDK's detectors (environment, process, host) give, as pipeline.ts builds both. */

// The SDK's types and afterstop's structural ones go both ways (joined mode hands ours to the SDK and back).
export const typesAgree = {
  span: (span: SdkReadableSpan): ReadableSpan => span,
  sdkSpan: (span: ReadableSpan): SdkReadableSpan => span,
  processor: (processor: SdkSpanProcessor): SpanProcessor => processor,
  sdkProcessor: (processor: SpanProcessor): SdkSpanProcessor => processor,
  exporter: (exporter: SdkSpanExporter): SpanExporter => exporter,
  sdkExporter: (exporter: SpanExporter): SdkSpanExporter => exporter,
  resource: (resource: SdkResource): Resource => resource,
  sdkResource: (resource: Resource): SdkResource => resource,
};

async function both(env: Record<string, string>) {
  const saved = { ...process.env };
  delete process.env['OTEL_SERVICE_NAME'];
  delete process.env['OTEL_RESOURCE_ATTRIBUTES'];
  Object.assign(process.env, env);
  try {
    const sdk = sdkResource({ 'afterstop.schema.version': '1' }).merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
    const ours = resourceFromAttributes({ 'afterstop.schema.version': '1' }).merge(detectedResource(process.env));
    expect(ours.asyncAttributesPending).toBe(sdk.asyncAttributesPending);
    await Promise.all([sdk.waitForAsyncAttributes?.(), ours.waitForAsyncAttributes?.()]);
    return { sdk: sdk.attributes, ours: ours.attributes };
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("afterstop's resource", () => {
  it('has the attributes the SDK detects, in the same order, the machine id once settled', async () => {
    for (const env of <Record<string, string>[]>[
      {},
      { OTEL_SERVICE_NAME: 'svc', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment.name=test,team=a%2Cb%3Dc%20d' },
      { OTEL_RESOURCE_ATTRIBUTES: 'ok=1,broken' },
      { OTEL_RESOURCE_ATTRIBUTES: 'bad=%E0%A4%A' },
      { OTEL_RESOURCE_ATTRIBUTES: ` , k = v ,=empty` },
      { OTEL_RESOURCE_ATTRIBUTES: `long=${'x'.repeat(256)}` },
      { OTEL_SERVICE_NAME: '   ' },
    ]) {
      const { sdk, ours } = await both(env);
      expect(Object.entries(ours), JSON.stringify(env)).toEqual(Object.entries(sdk));
    }
    const { ours } = await both({ OTEL_SERVICE_NAME: 'svc' });
    expect(ours).toMatchObject({ 'service.name': 'svc', 'process.pid': process.pid, 'host.name': expect.any(String) });
  });

  it('merges as the SDK merges: the other resource wins, and either kind merges with the other', () => {
    const sdkMerged = sdkResource({ a: 1, b: 1 }).merge(sdkResource({ b: 2, c: 2 }));
    const oursMerged = resourceFromAttributes({ a: 1, b: 1 }).merge(resourceFromAttributes({ b: 2, c: 2 }));
    expect(Object.entries(oursMerged.attributes)).toEqual(Object.entries(sdkMerged.attributes));
    expect(resourceFromAttributes({ a: 1 }).merge(sdkResource({ a: 2 })).attributes).toEqual({ a: 2 });
    expect(sdkResource({ a: 1 }).merge(resourceFromAttributes({ a: 3 })).attributes).toEqual({ a: 3 });
    expect(resourceFromAttributes({ a: 1 }).merge(null).attributes).toEqual({ a: 1 });
  });
});
