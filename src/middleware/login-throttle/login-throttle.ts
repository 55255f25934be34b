import type { Context, MiddlewareHandler } from 'hono';
import type { ClientAuthenticator } from '../../auth/client-authenticator.js';
import { type FailureThrottle, throttleKeys } from '../../auth/failure-throttle.js';
import { noteFacts } from '../../http/request-facts.js';

type AuthenticatedClient = NonNullable<Awaited<ReturnType<ClientAuthenticator>>>;

/** The shape of the client ids Larder makes (randomUUID). */
const CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What the journal and the access log show for a claimed client id of any other shape. */
export const NOT_A_CLIENT_ID = '(not a client id)';

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
      // Client ids are UUIDs: anything else claimed (a secret pasted into the wrong field) never reaches the
      // journal or the access log as it was sent.
      noteFacts(c, { clientId: CLIENT_ID.test(clientId) ? clientId : NOT_A_CLIENT_ID });
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
