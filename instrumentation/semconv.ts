export * from '../contract/semconv.js';
