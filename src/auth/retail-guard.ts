import { tokenFingerprint } from '../http/request-facts.js';
import { echoedHeader } from '../http/request-header.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import { type TokenSettings, type VerifiedToken, verifyAccessToken } from './access-tokens.js';
import type { AuthState } from './auth-state.js';
import { type ClientGrant, grantsLocation } from './client-grants.js';
import { createLruCache } from './lru-cache.js';
import { grantsRetailRead, RETAIL_INVENTORY_READ } from './scopes.js';

/** An authorized retail caller: what retail sees instead of a token. */
export interface Principal {
  clientId: string;
  scopes: readonly string[];
  /** For the request journal: the token's fingerprint, worked out once per token (absent for stand-in guards). */
  tokenFingerprint?: string;
}

/** A verified token as cached, with its fingerprint and the whole Authorization value it was verified from. */
interface CachedToken extends VerifiedToken {
  fingerprint: string;
  authorization: string;
}

/**
 * The cache key of an Authorization value: its last characters, the token's signature. Each request's header is
 * a new string, so a Map keyed by the whole value hashed all of it (about 560 characters) on every request; the
 * tail is as good as unique, and a hit is checked against the whole value before it counts.
 */
const KEY_CHARS = 32;
const cacheKey = (authorization: string): string =>
  authorization.length > KEY_CHARS ? authorization.slice(-KEY_CHARS) : authorization;

/**
 * The one declaration of the retail guard. Rejects with a LarderError (401/403) unless the bearer token is valid,
 * carries a retail read scope and (when given) `locationId` is granted. With no `locationId` (header missing)
 * only the token and its scope are checked; the caller then answers 400.
 */
export type RetailGuard = (
  authorization: string | undefined,
  locationId: string | undefined,
) => Promise<Principal>;

export const REALM = 'larder';

// RFC 6750 §2.1 b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * No token (or not in Bearer form): our product decision names this case with invalid_token alongside the invalid,
 * expired and revoked ones, so one challenge covers every 401, though RFC 6750 §3.1 would let it go without.
 */
const unauthenticated = (message?: string): LarderError =>
  new LarderError('ERR_UNAUTHENTICATED', {
    ...(message === undefined ? {} : { message }),
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
  });

/** A header in another form (the bare token, another scheme): no token was offered. */
const NOT_BEARER = 'The Authorization header must be "Bearer " followed by the access token.';

export const invalidToken = (description: string): LarderError =>
  new LarderError('ERR_UNAUTHENTICATED', {
    message: `${description}.`,
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
  });

const insufficientScope = (): LarderError =>
  new LarderError('ERR_INSUFFICIENT_SCOPE', {
    headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${RETAIL_INVENTORY_READ}"` },
  });

/**
 * Names the location asked for (the caller sent it), and a granted one it differs from only in case: ids are
 * case-sensitive, and `Kitchen-1` for `kitchen-1` is the usual slip. Only the caller's own grants are named.
 */
const notGrantedMessage = (client: ClientGrant, locationId: string): string => {
  const lower = locationId.toLowerCase();
  let meant: string | undefined;
  for (const granted of client.locations)
    if (granted.toLowerCase() === lower) {
      meant = granted;
      break;
    }
  // As its sender wrote it: a client that sent UTF-8 (curl does) is shown its own text again.
  return `The client is not granted location ${echoedHeader(locationId)}${meant === undefined ? '' : ` (location ids are case-sensitive: did you mean ${meant}?)`}.`;
};

/**
 * Authorizes a retail call. Verified tokens are cached (LRU keyed by the Authorization header's tail, honouring
 * `exp`), so the hot path is a Map lookup plus checks against the in-memory client table: no ECDSA per request. The
 * client's current state (revocation, scopes, locations) is checked on every call, so changes apply to
 * tokens already issued.
 */
export const createRetailGuard = ({
  state,
  settings,
  clock,
  cacheSize = 10_000,
}: {
  state: AuthState;
  settings: TokenSettings;
  clock: Clock;
  cacheSize?: number;
}): RetailGuard => {
  const verified = createLruCache<string, CachedToken>(cacheSize);
  // Concurrent first uses of one token share one signature verification.
  const pending = new Map<string, Promise<CachedToken>>();

  const verify = async (authorization: string, token: string): Promise<CachedToken> => {
    let result = await verifyAccessToken(token, state.keys(), settings, clock);
    if (!result.ok && result.unknownKey && (await state.reloadForUnknownKey()))
      result = await verifyAccessToken(token, state.keys(), settings, clock);
    if (!result.ok) throw invalidToken(result.reason);
    const cached = { ...result.token, fingerprint: tokenFingerprint(token), authorization };
    verified.set(cacheKey(authorization), cached);
    return cached;
  };

  const verifyOnce = (authorization: string, token: string): Promise<CachedToken> => {
    let promise = pending.get(authorization);
    if (promise === undefined) {
      promise = verify(authorization, token).finally(() => pending.delete(authorization));
      pending.set(authorization, promise);
    }
    return promise;
  };

  const decide = (
    token: CachedToken,
    client: ClientGrant | undefined,
    locationId: string | undefined,
  ): Principal => {
    if (client === undefined) throw invalidToken('The client is unknown');
    if (client.revoked) throw invalidToken('The client is revoked');
    // Scopes removed from the client since issuance no longer count.
    const scopes = token.scopes.filter((scope) => client.scopes.has(scope));
    if (!grantsRetailRead(scopes)) throw insufficientScope();
    if (locationId !== undefined && !grantsLocation(client, locationId))
      throw new LarderError('ERR_LOCATION_FORBIDDEN', { message: notGrantedMessage(client, locationId) });
    return { clientId: token.clientId, scopes, tokenFingerprint: token.fingerprint };
  };

  return async (authorization, locationId) => {
    if (authorization === undefined) throw unauthenticated();
    // A header seen and verified before needs no regex. Another header with the same tail is a miss, and is
    // verified on its own.
    const key = cacheKey(authorization);
    let token = verified.get(key);
    if (token !== undefined && token.authorization !== authorization) token = undefined;
    // A deleted key, an expiry or a clock moved back before issue drops the entry; verification says why.
    const now = clock.now();
    if (
      token !== undefined &&
      !(
        now < token.rejectAfter &&
        now >= token.rejectBefore &&
        state.keys().verificationKey(token.kid) !== undefined
      )
    ) {
      verified.delete(key);
      token = undefined;
    }
    if (token === undefined) {
      const match = BEARER.exec(authorization);
      if (match === null) {
        if (/^Bearer +\S/i.test(authorization)) throw invalidToken('The access token is malformed');
        throw unauthenticated(authorization.trim() === '' ? undefined : NOT_BEARER);
      }
      token = await verifyOnce(authorization, match[1] as string);
    }
    // One promise per call on the hot path (cached token, known client): nothing else is awaited.
    return decide(
      token,
      state.client(token.clientId) ?? (await state.lookupClient(token.clientId)),
      locationId,
    );
  };
};
