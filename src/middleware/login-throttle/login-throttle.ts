import type { Context, MiddlewareHandler } from 'hono';
import type { ClientAuthenticator } from '../../auth/client-authenticator.js';
import { type FailureThrottle, throttleKeys } from '../../auth/failure-throttle.js';
import { clientIdFact, noteFacts } from '../../http/request-facts.js';

type AuthenticatedClient = NonNullable<Awaited<ReturnType<ClientAuthenticator>>>;

/** What a credential check found; each endpoint answers it in its own error format. */
export type CredentialOutcome =
  | { ok: true; client: AuthenticatedClient }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  | { ok: false; reason: 'invalid' };

export type CredentialCheck = (clientId: string, clientSecret: string) => Promise<CredentialOutcome>;

declare module 'hono' {
  interface ContextVariableMap {
    /** Checks client credentials through the failed-login throttle (login and OAuth token endpoints). */
    checkCredentials: CredentialCheck;
  }
}

export interface LoginThrottleDeps {
  throttle: FailureThrottle;
  authenticate: ClientAuthenticator;
  /** The caller's address, which failures count against besides the client id. */
  sourceAddress: (c: Context) => string | undefined;
}

/**
 * The one throttle → authenticate → record-failure sequence both credential endpoints use, so the token
 * endpoint is no way around the login throttle. It runs only when the handler has parsed the credentials from
 * its own body format, so the middleware hands the handler the check rather than running it up front.
 */
export const loginThrottle =
  ({ throttle, authenticate, sourceAddress }: LoginThrottleDeps): MiddlewareHandler =>
  async (c, next) => {
    c.set('checkCredentials', async (clientId, clientSecret) => {
      noteFacts(c, { clientId: clientIdFact(clientId) });
      const keys = throttleKeys(clientId, sourceAddress(c));
      const retryAfterSeconds = throttle.retryAfterSeconds(keys);
      if (retryAfterSeconds !== undefined) return { ok: false, reason: 'throttled', retryAfterSeconds };
      const client = await authenticate(clientId, clientSecret);
      if (client !== undefined) return { ok: true, client };
      throttle.recordFailure(keys);
      return { ok: false, reason: 'invalid' };
    });
    await next();
  };
