import type { Context, MiddlewareHandler } from 'hono';
import type { Principal, RetailGuard } from '../../auth/retail-guard.js';
import { clientIdFact, noteFacts, tokenFingerprint, unverifiedClientId } from '../../http/request-facts.js';
import { echoedHeader, requestHeader } from '../../http/request-header.js';
import { LarderError } from '../../shared/errors.js';
import { LOCATION_HEADER } from '../../shared/limits.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The authorized caller of a retail route: its client and effective scopes, never its token. */
    principal: Principal;
    /** The location the caller asked for and is granted. */
    locationId: string;
  }
}

const LOCATION_HEADER_KEY = LOCATION_HEADER.toLowerCase();

/**
 * A token's journal facts, worked out once per Authorization header: a hash, a JSON parse (or even the regex that
 * finds the token) per request cost too much. Bounded in headers and in their characters: the headers are the
 * callers' (refused ones too), and 10,000 of 16 KiB each held 160 MB.
 */
const tokenFacts = new Map<string, { tokenFingerprint: string; clientId?: string }>();
const MAX_TOKEN_FACTS = 10_000;
/** Room for 10,000 of Larder's own headers (about 560 characters each). */
export const MAX_TOKEN_FACT_CHARS = 8_000_000;
let heldChars = 0;

/** The characters of the Authorization headers held for their facts now. */
export const heldTokenFactChars = (): number => heldChars;

/**
 * For the journal: which token was used, and whose it claims to be (refused tokens included, and requests no
 * route took, so a client's mistyped paths show under its id).
 */
export const noteToken = (c: Context, authorization = requestHeader(c, 'authorization')): void => {
  if (authorization === undefined || c.get('facts') === undefined) return;
  let facts = tokenFacts.get(authorization);
  if (facts === undefined) {
    const token = /^Bearer +(\S+)/i.exec(authorization)?.[1];
    if (token === undefined) return;
    const clientId = unverifiedClientId(token);
    facts = {
      tokenFingerprint: tokenFingerprint(token),
      ...(clientId === undefined ? {} : { clientId: clientIdFact(clientId) }),
    };
    if (tokenFacts.size >= MAX_TOKEN_FACTS || heldChars + authorization.length > MAX_TOKEN_FACT_CHARS) {
      tokenFacts.clear();
      heldChars = 0;
    }
    tokenFacts.set(authorization, facts);
    heldChars += authorization.length;
  }
  noteFacts(c, facts);
};

/**
 * Retail authorization, before a handler touches data: the token first (401/403), then the location header
 * (400), then the grant (403), then whether the location exists (404). With the header missing the token is still checked, so an anonymous caller
 * learns nothing but "401".
 */
export const retailAuth = (
  guard: RetailGuard,
  locationExists: (locationId: string) => boolean | Promise<boolean>,
): MiddlewareHandler => {
  return async (c, next) => {
    const authorization = requestHeader(c, 'authorization');
    const header = requestHeader(c, LOCATION_HEADER_KEY)?.trim();
    const locationId = header === '' ? undefined : header;
    const facts = c.get('facts');
    let principal: Principal;
    try {
      principal = await guard(authorization, locationId);
    } catch (error) {
      if (facts !== undefined) noteToken(c, authorization);
      throw error;
    }
    // For the journal: an accepted token's fingerprint comes with the principal (worked out once per token).
    if (facts !== undefined) {
      facts.clientId = principal.clientId;
      if (principal.tokenFingerprint !== undefined) facts.tokenFingerprint = principal.tokenFingerprint;
    }
    if (locationId === undefined)
      throw new LarderError('ERR_LOCATION_HEADER', {
        fieldName: LOCATION_HEADER,
        message: `The ${LOCATION_HEADER} header is required and must not be empty.`,
      });
    // After the grant: a client learns whether a location exists only when it may read it.
    const exists = locationExists(locationId);
    if (!(exists === true || (exists !== false && (await exists))))
      throw new LarderError('ERR_LOCATION_NOT_FOUND', {
        fieldName: LOCATION_HEADER,
        // As its sender wrote it (`Café` sent by curl as UTF-8), as the journal shows it.
        message: `Location ${echoedHeader(locationId)} is unknown.`,
      });
    c.set('principal', principal);
    c.set('locationId', locationId);
    await next();
  };
};
