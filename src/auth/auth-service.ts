import { type Context, type Handler, Hono } from 'hono';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import type { TokenSettings } from './access-tokens.js';
import { createAuthState } from './auth-state.js';
import { type ClientAuthenticator, createClientAuthenticator } from './client-authenticator.js';
import { loadSecretHasher } from './client-secret.js';
import {
  createFailureThrottle,
  type FailureThrottle,
  noThrottle,
  type ThrottleLimit,
} from './failure-throttle.js';
import { createLoginHandler } from './login-route.js';
import {
  authorizationServerMetadata,
  JWKS_PATH,
  METADATA_PATH,
  pathSuffixedMetadataPath,
} from './metadata.js';
import { createOAuthTokenHandler } from './oauth-token-route.js';
import { createRetailGuard, type RetailGuard } from './retail-guard.js';
import { sharedThrottle, type WorkerChannel } from './shared-throttle.js';
import { ensureSigningKey, pruneSigningKeys, recordTokenTtl } from './signing-keys.js';
import { createTokenMinter, currentSigningKid } from './token-minter.js';

export const LOGIN_PATH = '/authentication/v1/authentication/login';

/** Revocations, grant changes and rotations elsewhere are seen within a second (decisions.md). */
export const POLL_INTERVAL_MS = 250;

export interface AuthConfig {
  /** The issuer (`--public-url`), e.g. http://127.0.0.1:8080; a trailing slash is ignored. */
  publicUrl: string;
  tokenTtlSeconds: number;
  /** Failed credential checks allowed per client id and address in a window (default 10 a minute). */
  loginThrottle?: ThrottleLimit | 'off';
  /** A worker of `--workers N`: failures are shared with the other workers through this channel. */
  throttleChannel?: WorkerChannel;
}

export interface AuthService {
  guard: RetailGuard;
  /** POST handlers of the two credential endpoints; they expect the login-throttle middleware in front. */
  login: Handler;
  token: Handler;
  /** What the login-throttle middleware checks credentials with. */
  credentials: { authenticate: ClientAuthenticator; throttle: FailureThrottle };
  /** RFC 8414 metadata and JWKS: no credentials involved. */
  discovery: Hono;
  /** Sees changes made elsewhere now, as the next poll would (tests call it instead of waiting). */
  refresh(): Promise<void>;
  /** Starts the authVersion poll; returns its stop (AuthState.startPolling). */
  start(): () => Promise<void>;
}

export interface AuthServiceDeps {
  store: Store;
  clock: Clock;
  config: AuthConfig;
  logger: Logger;
}

/** The audience of every access token: the retail API of this issuer. */
export const retailAudience = (issuer: string): string => `${issuer}/v1`;

export const createAuthService = async ({
  store,
  clock,
  config,
  logger,
}: AuthServiceDeps): Promise<AuthService> => {
  const issuer = config.publicUrl.replace(/\/+$/, '');
  const settings: TokenSettings = {
    issuer,
    audience: retailAudience(issuer),
    ttlSeconds: config.tokenTtlSeconds,
  };

  const hasher = await loadSecretHasher(store);
  await ensureSigningKey(store, clock);
  await recordTokenTtl(store, config.tokenTtlSeconds);
  const pruned = await pruneSigningKeys(store, clock, config.tokenTtlSeconds);
  if (pruned.length > 0) logger.info('expired signing keys deleted', { kids: pruned });
  const state = await createAuthState({ store, clock, logger });

  const endpointDeps = {
    mint: createTokenMinter(state, settings, clock),
    signingKid: () => currentSigningKid(state),
    clock,
  };
  const metadata = authorizationServerMetadata(issuer);

  const routes = new Hono();
  const metadataResponse = (c: Context) => c.json(metadata, 200, { 'Cache-Control': 'public, max-age=300' });
  // Routes are served at the root: behind a proxy that strips the issuer's path, this is <issuer>/.well-known/….
  routes.get(METADATA_PATH, metadataResponse);
  const suffixedPath = pathSuffixedMetadataPath(issuer);
  if (suffixedPath !== undefined) {
    // The RFC 8414 URL lies outside the issuer's path, so it arrives unstripped. Compared rather than
    // registered as a route: the path is configuration and may hold route pattern syntax (`:`, `*`, `{`).
    routes.get(`${METADATA_PATH}/*`, (c, next) =>
      new URL(c.req.url).pathname === suffixedPath ? metadataResponse(c) : next(),
    );
  }
  // Short max-age: a rotated-in key must reach verifiers that cache the JWKS quickly.
  routes.get(JWKS_PATH, (c) => c.json(state.keys().jwks, 200, { 'Cache-Control': 'public, max-age=60' }));

  return {
    guard: createRetailGuard({ state, settings, clock }),
    login: createLoginHandler(endpointDeps),
    token: createOAuthTokenHandler(endpointDeps),
    credentials: {
      authenticate: createClientAuthenticator(store, hasher),
      throttle: (() => {
        if (config.loginThrottle === 'off') return noThrottle;
        const local = createFailureThrottle({ clock, ...(config.loginThrottle ?? {}) });
        return config.throttleChannel === undefined ? local : sharedThrottle(local, config.throttleChannel);
      })(),
    },
    discovery: routes,
    refresh: () => state.refresh(),
    start: () => state.startPolling(POLL_INTERVAL_MS),
  };
};
