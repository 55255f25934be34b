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
