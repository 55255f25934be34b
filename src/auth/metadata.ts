import { TOKEN_ENDPOINT_PATH } from './oauth-token-route.js';
import { KNOWN_SCOPES } from './scopes.js';

export const METADATA_PATH = '/.well-known/oauth-authorization-server';
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * Where RFC 8414 §3.1 puts the metadata of an issuer with a path: the well-known segment between host and
 * path (https://host/larder → /.well-known/oauth-authorization-server/larder). Undefined for a root issuer.
 */
export const pathSuffixedMetadataPath = (issuer: string): string | undefined => {
  const { pathname } = new URL(issuer);
  return pathname === '/' ? undefined : `${METADATA_PATH}${pathname}`;
};

/** RFC 8414 authorization server metadata; every URL derives from the issuer (--public-url). */
export const authorizationServerMetadata = (issuer: string) => ({
  issuer,
  token_endpoint: `${issuer}${TOKEN_ENDPOINT_PATH}`,
  jwks_uri: `${issuer}${JWKS_PATH}`,
  grant_types_supported: ['client_credentials'],
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  scopes_supported: [...KNOWN_SCOPES],
  // No authorization endpoint: client credentials is the only grant.
  response_types_supported: [],
});
