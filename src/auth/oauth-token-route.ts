import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { readBodyText } from '../http/request-body.js';
import { collectingFacts, noteFacts, tokenFingerprint } from '../http/request-facts.js';
import { isLarderError, LarderError } from '../shared/errors.js';
import { MAX_BODY_BYTES } from '../shared/limits.js';
import { MAX_CLIENT_ID_LENGTH } from './client-authenticator.js';
import type { AuthEndpointDeps } from './endpoint-deps.js';
import { REALM } from './retail-guard.js';
import type { OAuthError, OAuthErrorCode } from './schemas.js';
import { splitScope } from './scopes.js';

export const TOKEN_ENDPOINT_PATH = '/authentication/v1/authentication/customer/oauth/token';

export type { OAuthErrorCode } from './schemas.js';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** RFC 6749 §5.2 error, answered here rather than through LarderError: OAuth clients parse this shape. */
/**
 * RFC 6749 §3.3's scope-token: visible ASCII but `"` and `\`. An error_description may hold only these and space
 * (§5.2), so a scope is echoed only once it passes, and then cut short: it is the caller's, up to the body limit.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const SCOPE_SYNTAX =
  'scope must be space-separated tokens of visible ASCII, without double quotes or backslashes (RFC 6749 section 3.3)';
const MAX_ECHOED_CHARS = 200;
const echoed = (text: string) =>
  text.length <= MAX_ECHOED_CHARS
    ? text
    : `${text.slice(0, MAX_ECHOED_CHARS)}... (${text.length} characters)`;

export const oauthError = (
  c: Context,
  status: ContentfulStatusCode,
  error: OAuthErrorCode,
  description: string,
  headers: Record<string, string> = {},
): Response => {
  const retryAfter = headers['Retry-After'];
  noteFacts(c, {
    code: error,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) }),
  });
  const requestId = (c.get('requestId') as string | undefined) ?? '';
  return c.json({ error, error_description: description, requestId } satisfies OAuthError, status, {
    ...NO_STORE,
    ...headers,
  });
};

/** The RFC 6749 error a status stands for at the token endpoint (the OpenAPI document lists them alike). */
export const oauthCodeOf = (status: number): OAuthErrorCode =>
  status === 401
    ? 'invalid_client'
    : status === 429 || status === 502 || status === 503 || status === 504
      ? 'temporarily_unavailable'
      : status >= 500
        ? 'server_error'
        : 'invalid_request';

/**
 * Any other failure at the token endpoint (a wrong method, a body that never arrived, the database down), in the
 * same RFC 6749 shape, so an OAuth client parses every error it can get there: the error edge answers with this.
 */
export const oauthErrorFrom = (c: Context, error: LarderError): Response => {
  const answer = oauthError(
    c,
    error.status as ContentfulStatusCode,
    oauthCodeOf(error.status),
    error.message.replace(/\.$/, ''),
    error.headers,
  );
  noteFacts(c, { larderCode: error.numericCode });
  return answer;
};

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  viaBasic: boolean;
}

// RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding.
const formDecode = (value: string): string => decodeURIComponent(value.replaceAll('+', ' '));

const parseBasic = (authorization: string): { clientId: string; clientSecret: string } | undefined => {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization);
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
};

const SINGLE_VALUED = ['grant_type', 'scope', 'client_id', 'client_secret'] as const;

/**
 * POST /authentication/v1/authentication/customer/oauth/token — RFC 6749 §4.4 client credentials with
 * client_secret_basic or client_secret_post. Every grant issues a fresh token (unlike login). Failed client
 * authentications share the login throttle, so this endpoint is no way around it.
 */
export const createOAuthTokenHandler =
  (deps: AuthEndpointDeps): Handler =>
  async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
      return oauthError(c, 400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    let body: string;
    try {
      body = await readBodyText(c);
    } catch (error) {
      if (!isLarderError(error)) throw error;
      if (error.code === 'ERR_BODY_TOO_LARGE')
        return oauthError(c, 413, 'invalid_request', `The body is over ${MAX_BODY_BYTES / 1024} KiB`);
      // RFC 6749 §5.2 answers a body it cannot take with 400, as for another content type above.
      if (error.code === 'ERR_UNSUPPORTED_MEDIA_TYPE')
        return oauthError(c, 400, 'invalid_request', error.message.replace(/\.$/, ''), error.headers);
      throw error;
    }
    const form = new URLSearchParams(body);
    for (const name of SINGLE_VALUED)
      if (form.getAll(name).length > 1) return oauthError(c, 400, 'invalid_request', `${name} is repeated`);

    const grantType = form.get('grant_type');
    if (grantType === null || grantType === '')
      return oauthError(c, 400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials')
      return oauthError(c, 400, 'unsupported_grant_type', 'Only client_credentials is supported');

    const authorization = c.req.header('authorization');
    let credentials: ClientCredentials;
    if (authorization !== undefined) {
      const basic = parseBasic(authorization);
      if (basic === undefined)
        return oauthError(c, 401, 'invalid_client', 'The Authorization header is not valid HTTP Basic', {
          'WWW-Authenticate': `Basic realm="${REALM}"`,
        });
      if (form.has('client_secret'))
        return oauthError(c, 400, 'invalid_request', 'Use one client authentication method, not two');
      const formClientId = form.get('client_id');
      if (formClientId !== null && formClientId !== basic.clientId)
        return oauthError(c, 400, 'invalid_request', 'client_id does not match the Authorization header');
      credentials = { ...basic, viaBasic: true };
    } else {
      const clientId = form.get('client_id');
      const clientSecret = form.get('client_secret');
      if (clientId === null || clientSecret === null)
        return oauthError(c, 401, 'invalid_client', 'Client authentication is required', {
          'WWW-Authenticate': `Basic realm="${REALM}"`,
        });
      credentials = { clientId, clientSecret, viaBasic: false };
    }

    // Capped at the edge: nothing downstream (throttle, journal, store) ever holds a client id of any length.
    if (credentials.clientId.length > MAX_CLIENT_ID_LENGTH)
      return oauthError(
        c,
        400,
        'invalid_request',
        `client_id is longer than ${MAX_CLIENT_ID_LENGTH} characters`,
      );
    const outcome = await c.get('checkCredentials')(credentials.clientId, credentials.clientSecret);
    if (!outcome.ok && outcome.reason === 'throttled')
      return oauthErrorFrom(
        c,
        new LarderError('ERR_RATE_LIMITED', {
          headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
        }),
      );
    if (!outcome.ok) {
      return oauthError(
        c,
        401,
        'invalid_client',
        'Client authentication failed',
        credentials.viaBasic ? { 'WWW-Authenticate': `Basic realm="${REALM}"` } : {},
      );
    }

    const { client } = outcome;
    const requested = splitScope(form.get('scope') ?? '');
    if (!requested.every((scope) => SCOPE_TOKEN.test(scope)))
      return oauthError(c, 400, 'invalid_scope', SCOPE_SYNTAX);
    const notGranted = requested.filter((scope) => !client.scopes.includes(scope));
    if (notGranted.length > 0)
      return oauthError(
        c,
        400,
        'invalid_scope',
        `Not granted to this client: ${echoed(notGranted.join(' '))}`,
      );
    const scopes = requested.length > 0 ? client.scopes.filter((s) => requested.includes(s)) : client.scopes;

    const issued = await deps.mint(client.clientId, scopes);
    if (collectingFacts(c))
      noteFacts(c, { tokenFingerprint: tokenFingerprint(issued.token), tokenExpiresAtMs: issued.expiresAt });
    return c.json(
      {
        access_token: issued.token,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        scope: scopes.join(' '),
      },
      200,
      NO_STORE,
    );
  };
