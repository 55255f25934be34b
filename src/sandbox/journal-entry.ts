import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS } from '../records/kinds.js';

/**
 * One answered request as the request journal keeps it (`GET /_larder/requests`) and the integration report
 * judges it. Secrets, tokens and the Authorization value are never kept: a token appears only as its
 * fingerprint, enough to tell tokens apart.
 */
export interface JournalEntry {
  /** Order of answering within this journal. */
  seq: number;
  /** When the request arrived, on the virtual clock: ISO date-time and epoch ms. */
  time: string;
  timeMs: number;
  method: string;
  path: string;
  /** The OpenAPI operation id, when the route has one (see OPERATIONS). */
  operation?: string;
  status: number;
  /** The ErrorMessage `code`, or the RFC 6749 `error` of the token endpoint. */
  code?: number | string;
  durationMs: number;
  /** The client the request was made by or for (token requests: the client id it named). */
  clientId?: string;
  /** The Platform-Restaurant-External-ID header, as sent. */
  location?: string;
  requestId: string;
  /** The injected fault, if any: the rule id (or `header`) and the effect (`rule-1 status=503`, `header latency=800ms`). */
  fault?: string;
  /** Search requests: the JSON body as sent and the paging query. */
  body?: unknown;
  pageToken?: string;
  pageSize?: number;
  /** Search answers: whether a next page exists. */
  hasNextPage?: boolean;
  /** A short fingerprint of the bearer token used, or of the token a token request issued. */
  tokenFingerprint?: string;
  /** The token that was issued by this (login/token) request expires at this virtual epoch ms. */
  tokenExpiresAtMs?: number;
  /** 429 answers: the Retry-After they gave, in seconds. */
  retryAfterSeconds?: number;
}

/** Operation ids, shared by the routes, the OpenAPI document, the journal and the report. */
export const OPERATIONS = {
  login: 'authenticationLoginPost',
  oauthToken: 'oauthToken',
  searchPurchaseOrders: PURCHASE_ORDERS.operations.search,
  getPurchaseOrder: PURCHASE_ORDERS.operations.get,
  searchInventoryHistory: INVENTORY_HISTORY.operations.search,
  getInventoryHistoryEntry: INVENTORY_HISTORY.operations.get,
} as const;

/** The operations that issue tokens, and the retail searches. */
export const TOKEN_OPERATIONS: readonly string[] = [OPERATIONS.login, OPERATIONS.oauthToken];
export const SEARCH_OPERATIONS: readonly string[] = RECORD_KINDS.map((kind) => kind.operations.search);
