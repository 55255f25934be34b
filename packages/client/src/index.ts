export {
  type CallOptions,
  type ClientOptions,
  createClient,
  type LarderClient,
  type Page,
  type RecordsApi,
  type SearchOptions,
  type SearchResult,
  type SyncOptions,
  type SyncRun,
} from './client.js';
export { LarderApiError, LarderClientError, LarderTimeoutError, LarderTransportError } from './errors.js';
export type * from './generated/types.js';
export { LOCATION_HEADER, MAX_PAGE_SIZE } from './generated/types.js';
export {
  createSandbox,
  type Duration,
  type FollowOptions,
  type JournalFilter,
  type JournalFollow,
  type LarderSandbox,
  type SandboxOptions,
} from './sandbox.js';
export type { Watermark } from './sync.js';
export { DEFAULT_RETRY, type RetryOptions, type Sleep, type TimeoutSignal } from './transport.js';
