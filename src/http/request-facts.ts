import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { pageSizeOf } from '../shared/limits.js';

/**
 * Facts about a request that only the middleware or handler serving it knows (the client, the token's
 * fingerprint, the error code, a search body), collected for the request journal and the access log. Without
 * a collector `noteFacts` is one property check per call.
 */
export interface RequestFacts {
  clientId?: string | undefined;
  code?: number | string | undefined;
  /** Larder's numeric code of an error whose body carries another kind (RFC 6749's at the token endpoint). */
  larderCode?: number | undefined;
  tokenFingerprint?: string | undefined;
  tokenExpiresAtMs?: number | undefined;
  body?: unknown;
  pageToken?: string | undefined;
  pageSize?: number | undefined;
  hasNextPage?: boolean | undefined;
  retryAfterSeconds?: number | undefined;
  fault?: string | undefined;
  /** The status the client saw, when not the app's answer: 0 for a connection reset before any byte. */
  status?: number | undefined;
}

declare module 'hono' {
  interface ContextVariableMap {
    facts: RequestFacts | undefined;
  }
}

export const noteFacts = (c: Context, facts: RequestFacts): void => {
  const collected = c.get('facts');
  if (collected !== undefined) Object.assign(collected, facts);
};

/** Starts collecting facts for this request, or joins the collection an earlier middleware started. */
export const startFacts = (c: Context): RequestFacts => {
  const collected = c.get('facts');
  if (collected !== undefined) return collected;
  // Every field present from the start: one object shape for every request, so reading and noting facts stays
  // monomorphic instead of growing the object property by property.
  const facts: RequestFacts = {
    clientId: undefined,
    code: undefined,
    larderCode: undefined,
    tokenFingerprint: undefined,
    tokenExpiresAtMs: undefined,
    body: undefined,
    pageToken: undefined,
    pageSize: undefined,
    hasNextPage: undefined,
    retryAfterSeconds: undefined,
    fault: undefined,
    status: undefined,
  };
  c.set('facts', facts);
  return facts;
};

/** Whether anyone collects facts for this request (so callers skip computing them otherwise). */
export const collectingFacts = (c: Context): boolean => c.get('facts') !== undefined;

/**
 * What tells one search from another in the journal (and the report): its body, page token and page size as
 * sent. Noted by the search route, and by fault injection when a fault answers before the route runs. A pageSize
 * the search refuses (`abc`, `1e2`, empty) is left out: the journal's pageSize is the size a page was asked at.
 */
export const noteSearch = (
  c: Context,
  body: unknown,
  pageToken: string,
  pageSize: string | undefined,
): void => {
  if (!collectingFacts(c)) return;
  const size = pageSize === undefined ? undefined : pageSizeOf(pageSize);
  noteFacts(c, {
    body,
    ...(pageToken === '' ? {} : { pageToken }),
    ...(size === undefined ? {} : { pageSize: size }),
  });
};

/** The shape of the client ids Larder makes (randomUUID). */
const CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What the journal and the access log show for a claimed client id of any other shape. */
export const NOT_A_CLIENT_ID = '(not a client id)';

/**
 * A client id a caller claimed (a login's, Basic credentials', an unverified token's), as the journal and the access
 * log may show it: anything but a client id's shape (a secret pasted into the wrong field) is never kept as sent.
 */
export const clientIdFact = (clientId: string): string =>
  CLIENT_ID.test(clientId) ? clientId : NOT_A_CLIENT_ID;

/** Tells tokens apart in the journal without keeping them: the first 16 hex digits of their SHA-256. */
export const tokenFingerprint = (token: string): string =>
  createHash('sha256').update(token).digest('hex').slice(0, 16);

/**
 * Whose request this claims to be, unverified, for the journal and fault matching only: a bearer token's
 * `client_id` claim, or the id in HTTP Basic credentials (the OAuth token endpoint).
 */
export const claimedClientId = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined;
  const bearer = /^Bearer +(\S+)/i.exec(authorization)?.[1];
  if (bearer !== undefined) return unverifiedClientId(bearer);
  const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization)?.[1];
  if (basic === undefined) return undefined;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  try {
    return colon < 0 ? undefined : decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
  } catch {
    return undefined;
  }
};

/**
 * The `client_id` claim of a bearer token, read WITHOUT verifying it: only to say in the journal whose refused
 * token it was (an expired token is still its client's). Never used to authorize anything.
 */
export const unverifiedClientId = (token: string): string | undefined => {
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as unknown;
    const clientId = (payload as { client_id?: unknown } | null)?.client_id;
    return typeof clientId === 'string' ? clientId : undefined;
  } catch {
    return undefined;
  }
};
