import type { Handler } from 'hono';
import { readJsonObject } from '../http/request-body.js';
import { collectingFacts, noteFacts, tokenFingerprint } from '../http/request-facts.js';
import { LarderError } from '../shared/errors.js';
import { createValidator, requireValid } from '../shared/validator.js';
import type { AuthEndpointDeps } from './endpoint-deps.js';
import {
  type AuthenticationRequest,
  AuthenticationRequestSchema,
  type AuthenticationResponse,
} from './schemas.js';

/** A login while the current token has more than this left returns that same token (decisions.md). */
const REUSE_MIN_REMAINING_MS = 60_000;

const requestValidator = createValidator<AuthenticationRequest>(AuthenticationRequestSchema);

interface CurrentToken {
  token: string;
  expiresAt: number;
  /** The client's scopes when issued; a scope change forces a new token. */
  scopes: string;
  /** When issued: a clock moved back before it (the sandbox's virtual clock) forces a new token. */
  issuedAt: number;
  kid: string;
}

/**
 * POST /authentication/v1/authentication/login (interface.md §4.2, §5). The current token per client is kept
 * in this instance's memory only: another instance, or this one after a restart, issues a new token, and
 * every token issued stays valid until it expires, so the rule only spares churn and needs no shared state.
 */
export const createLoginHandler = (deps: AuthEndpointDeps): Handler => {
  const current = new Map<string, CurrentToken>();
  /**
   * The token being minted per client: logins that arrive together share it, as they would a token already
   * current, instead of each minting one (and the integration report then seeing several tokens at once).
   */
  const minting = new Map<string, Promise<CurrentToken>>();

  return async (c) => {
    const { clientId, clientSecret } = requireValid(requestValidator, await readJsonObject(c));

    const outcome = await c.get('checkCredentials')(clientId, clientSecret);
    if (!outcome.ok) {
      if (outcome.reason === 'invalid') throw new LarderError('ERR_INVALID_CREDENTIALS');
      throw new LarderError('ERR_RATE_LIMITED', {
        headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
      });
    }
    const { client } = outcome;

    const now = deps.clock.now();
    const scopes = client.scopes.join(' ');
    const kid = await deps.signingKid();
    const reusable = (held: CurrentToken | undefined): held is CurrentToken =>
      held !== undefined &&
      held.scopes === scopes &&
      held.expiresAt - now > REUSE_MIN_REMAINING_MS &&
      held.issuedAt <= now &&
      held.kid === kid;
    let token: string;
    let expiresIn: number;
    const held = current.get(clientId);
    // Awaited only when there is a mint to join: an await for nothing would let the logins that came together
    // each pass this point before the first began its mint.
    const flight = reusable(held) ? undefined : minting.get(clientId);
    const existing = flight === undefined ? held : await flight.catch(() => undefined);
    if (reusable(existing)) {
      token = existing.token;
      expiresIn = Math.floor((existing.expiresAt - now) / 1000);
    } else {
      const issued = deps.mint(clientId, client.scopes);
      const fresh = issued.then((minted) => {
        const kept = {
          token: minted.token,
          expiresAt: minted.expiresAt,
          scopes,
          issuedAt: now,
          kid: minted.kid,
        };
        current.set(clientId, kept);
        return kept;
      });
      // Logins joining a mint that fails get their own try; nothing waits on this copy otherwise.
      fresh.catch(() => {});
      minting.set(clientId, fresh);
      try {
        await fresh;
        ({ token, expiresIn } = await issued);
      } finally {
        if (minting.get(clientId) === fresh) minting.delete(clientId);
      }
    }
    if (collectingFacts(c))
      noteFacts(c, { tokenFingerprint: tokenFingerprint(token), tokenExpiresAtMs: now + expiresIn * 1000 });
    const response: AuthenticationResponse = {
      token: {
        tokenType: 'Bearer',
        scope: null,
        expiresIn,
        accessToken: token,
        idToken: null,
        refreshToken: null,
      },
      status: 'SUCCESS',
    };
    c.header('Cache-Control', 'no-store');
    return c.json(response);
  };
};
