export * from '../contract/traces-dir.js';
