export { startSimulator } from './server.js';
export type { Simulator, SimulatorOptions } from './server.js';
export { Ledger, ledgerFromJSON } from './ledger.js';
export type {
  EffectOutcome,
  EffectRecord,
  EffectRecordJSON,
  LedgerJSON,
  LedgerSnapshot,
  ModelApi,
  ModelRequestRecord,
  ModelRequestRecordJSON,
  ToolCallRef,
} from './ledger.js';
export { nowNs } from './clock.js';
export { DEFAULT_TOKENS, DEFAULT_TOKEN_DELAY_MS, parseDirectives, DirectiveError } from './script.js';
export type { Directives, ToolDirective } from './script.js';
export { DEFAULT_EFFECT_DELAY_MS } from './effects.js';
