// The register-startup bench's baseline (bench/register-startup.ts): a bare NodeSDK started, no
// instrumentations, metric readers or log processors, its traces to an exporter that writes nothing.
import { NodeSDK } from '@opentelemetry/sdk-node';

const discard = { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
new NodeSDK({ traceExporter: discard, instrumentations: [], metricReaders: [], logRecordProcessors: [] }).start();
