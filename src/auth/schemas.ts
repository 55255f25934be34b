import { type Static, Type } from '@sinclair/typebox';
import { Closed } from '../shared/schema-helpers.js';
import { MAX_CLIENT_ID_LENGTH } from './client-authenticator.js';

/** The authentication interface's shapes (interface.md §2.1–2.3). */

export const MACHINE_CLIENT_ACCESS_TYPE = 'PLATFORM_MACHINE_CLIENT';

export const AuthenticationRequestSchema = Type.Object(
  {
    clientId: Type.String({
      minLength: 1,
      maxLength: MAX_CLIENT_ID_LENGTH,
      description: 'Identifier of the API client.',
    }),
    clientSecret: Type.String({ minLength: 1, maxLength: 256, description: 'Secret of the API client.' }),
    userAccessType: Type.Unsafe<typeof MACHINE_CLIENT_ACCESS_TYPE>({
      type: 'string',
      enum: [MACHINE_CLIENT_ACCESS_TYPE],
      description: `Always ${MACHINE_CLIENT_ACCESS_TYPE}.`,
    }),
  },
  { title: 'AuthenticationRequest', ...Closed },
);
export type AuthenticationRequest = Static<typeof AuthenticationRequestSchema>;

export const AuthenticationTokenSchema = Type.Object(
  {
    tokenType: Type.Literal('Bearer', { description: 'OAuth 2 scheme of the token.' }),
    scope: Type.Null({ description: 'Always null; the scopes are inside the accessToken JWT.' }),
    expiresIn: Type.Integer({ description: 'Number of seconds the token is valid.' }),
    accessToken: Type.String({ description: 'JSON Web Token (RFC 9068) to present as a bearer token.' }),
    idToken: Type.Null({ description: 'Internal use only.' }),
    refreshToken: Type.Null({ description: 'Internal use only.' }),
  },
  { title: 'AuthenticationToken', ...Closed },
);

export const AuthenticationResponseSchema = Type.Object(
  {
    token: AuthenticationTokenSchema,
    status: Type.Literal('SUCCESS', { description: 'SUCCESS means the authentication succeeded.' }),
  },
  { title: 'AuthenticationResponse', ...Closed },
);
export type AuthenticationResponse = Static<typeof AuthenticationResponseSchema>;

/** RFC 6749 §4.4.2: the client-credentials token request, a form (the client may authenticate by HTTP Basic). */
export const OAuthTokenRequestSchema = Type.Object(
  {
    grant_type: Type.Literal('client_credentials', { description: 'The only grant Larder issues.' }),
    scope: Type.Optional(
      Type.String({ description: 'Space-separated scopes to narrow the token to (default: all granted).' }),
    ),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post: the client id.' })),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post: the client secret.' })),
  },
  { title: 'OAuthTokenRequest' },
);

/** RFC 6749 §5.1. */
export const OAuthTokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: 'JSON Web Token (RFC 9068) to present as a bearer token.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds the token is valid.' }),
    scope: Type.String({ description: 'The scopes the token carries, space-separated.' }),
  },
  { title: 'OAuthTokenResponse', ...Closed },
);

/** The RFC 6749 §5.2 error codes the token endpoint answers. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  'invalid_scope',
  'temporarily_unavailable',
  'server_error',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** RFC 6749 §5.2: the token endpoint's errors (OAuth clients parse this shape, not ErrorMessage). */
export const OAuthErrorSchema = Type.Object(
  {
    error: Type.Union(OAUTH_ERROR_CODES.map((code) => Type.Literal(code))),
    error_description: Type.String(),
    // RFC 6749 lets a response carry more members than it names; every Larder error body carries its request id.
    requestId: Type.String({
      description: 'The request id (also the X-Request-Id header): quote it in a report.',
    }),
  },
  { title: 'OAuthError', ...Closed },
);
export type OAuthError = Static<typeof OAuthErrorSchema>;

/** RFC 8414 authorization server metadata. */
export const AuthorizationServerMetadataSchema = Type.Object(
  {
    issuer: Type.String({ format: 'uri' }),
    token_endpoint: Type.String({ format: 'uri' }),
    jwks_uri: Type.String({ format: 'uri' }),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
  },
  { title: 'AuthorizationServerMetadata', ...Closed },
);

/** RFC 7517: the public signing keys (ES256) that verify access tokens. */
export const JsonWebKeySetSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.String(),
          crv: Type.String(),
          x: Type.String(),
          y: Type.String(),
          kid: Type.String(),
          alg: Type.String(),
          use: Type.Literal('sig'),
        },
        { title: 'JsonWebKey', ...Closed },
      ),
    ),
  },
  { title: 'JsonWebKeySet', ...Closed },
);

/** A client as operators see it (never its secret hash). */
export const ClientSummarySchema = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    allLocations: Type.Boolean(),
    locations: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ClientSummary', ...Closed },
);
export type ClientSummary = Static<typeof ClientSummarySchema>;

/** Answered once, at creation: the secret is never retrievable again. */
export const ClientCredentialsSchema = Type.Composite(
  [ClientSummarySchema, Type.Object({ clientSecret: Type.String({ description: 'Shown only once.' }) })],
  { title: 'ClientCredentials', ...Closed },
);
export type ClientCredentials = Static<typeof ClientCredentialsSchema>;
