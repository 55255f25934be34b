import { Type } from '@sinclair/typebox';
import { Closed } from '../shared/schema-helpers.js';

/** The shapes of the server's own routes (health, readiness, the index at `/`). */

export const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { title: 'Health', ...Closed });

export const ReadinessSchema = Type.Object(
  {
    status: Type.Literal('ready'),
    storage: Type.String({ description: "The storage engine: 'sqlite' or 'postgres'." }),
  },
  { title: 'Readiness', ...Closed },
);

const Link = (description: string) => Type.String({ description });

/** `GET /` for an API client: where everything is. */
export const ApiIndexSchema = Type.Object(
  {
    name: Type.Literal('Larder'),
    links: Type.Object(
      {
        docs: Link('The API reference page (HTML).'),
        openapi: Link('This API as an OpenAPI 3.1 document.'),
        login: Link('POST: log in with client credentials (JSON).'),
        token: Link('POST: the OAuth 2.0 token endpoint (client credentials, form).'),
        metadata: Link('RFC 8414 authorization server metadata.'),
        jwks: Link('The public keys that verify access tokens.'),
        health: Link('Liveness.'),
        ready: Link('Readiness (storage reachable).'),
      },
      { title: 'ApiLinks', ...Closed },
    ),
  },
  { title: 'ApiIndex', ...Closed },
);
