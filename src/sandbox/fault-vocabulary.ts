/**
 * The fault effects and statuses, in a module of their own with no dependencies, so the web console can offer
 * them without bundling the schema library. src/sandbox/fault-schemas.ts builds the schemas from them.
 */

export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];
export const FAULT_EFFECT_TYPES = [
  'status',
  'latency',
  'reset',
  'cutBody',
  'slowBody',
  'invalidToken',
  'badPageToken',
] as const;
export type FaultEffectType = (typeof FAULT_EFFECT_TYPES)[number];

/** Added latency and slow bodies are bounded, so an injected fault never holds a connection for long. */
export const MAX_FAULT_LATENCY_MS = 120_000;
export const MIN_SLOW_BODY_BYTES_PER_SECOND = 10;
export const MAX_SLOW_BODY_BYTES_PER_SECOND = 100_000_000;
