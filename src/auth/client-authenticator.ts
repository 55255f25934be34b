import type { ClientRecord, Store } from '../storage/store.js';
import type { SecretHasher } from './client-secret.js';

export type ClientAuthenticator = (
  clientId: string,
  clientSecret: string,
) => Promise<ClientRecord | undefined>;

// Unknown clients are compared against this so they cost the same HMAC as known ones.
const NO_HASH = '0'.repeat(64);

/** Client ids are generated far shorter; a longer one (or one with a NUL) names no client on either backend. */
export const MAX_CLIENT_ID_LENGTH = 256;

export const isPlausibleClientId = (clientId: string): boolean =>
  clientId.length <= MAX_CLIENT_ID_LENGTH && !clientId.includes('\u0000');

/**
 * Reads the client from the store (not the polled table) so a client created a moment ago by the CLI can log
 * in at once. Unknown, wrong secret and revoked all yield undefined: callers answer them identically.
 */
export const createClientAuthenticator =
  (store: Store, hasher: SecretHasher): ClientAuthenticator =>
  async (clientId, clientSecret) => {
    const record = isPlausibleClientId(clientId) ? await store.auth.getClient(clientId) : undefined;
    const secretMatches = hasher.verify(clientSecret, record?.secretHash ?? NO_HASH);
    return record !== undefined && secretMatches && record.revokedAt === null ? record : undefined;
  };
