import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../shared/random-token.js';
import type { Store } from '../storage/store.js';

/**
 * Client secrets are 256 random bits, so a keyed SHA-256 (HMAC) is the right hash: no password-hashing work
 * factor is needed to resist guessing, and verification stays cheap. The HMAC key lives in the store as a
 * setting (created once, race-safe via ensureSetting) so every instance and every CLI process agrees on it
 * without extra configuration; it separates Larder's hashes from any other SHA-256 of the same secret.
 */

const SECRET_BYTES = 32;

export const generateClientSecret = (): string => randomToken(SECRET_BYTES);

export interface SecretHasher {
  /** Hex HMAC-SHA256 of the secret. */
  hash(secret: string): string;
  /** Constant-time comparison against a stored hash. */
  verify(secret: string, storedHash: string): boolean;
}

export const createSecretHasher = (key: Buffer): SecretHasher => {
  const digest = (secret: string): Buffer => createHmac('sha256', key).update(secret, 'utf8').digest();
  return {
    hash: (secret) => digest(secret).toString('hex'),
    verify: (secret, storedHash) => {
      const expected = Buffer.from(storedHash, 'hex');
      const actual = digest(secret);
      // The stored hash's length is not secret; only the byte comparison must be constant-time.
      return expected.length === actual.length && timingSafeEqual(actual, expected);
    },
  };
};

export const loadSecretHasher = async (store: Store): Promise<SecretHasher> => {
  const key = await store.settings.clientSecretHashKey.ensure(randomBytes(32).toString('base64url'));
  return createSecretHasher(Buffer.from(key, 'base64url'));
};
