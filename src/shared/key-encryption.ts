import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of key material at rest (signing keys, HMAC secrets) under a key-encryption key (KEK) the
 * operator keeps outside the database: LARDER_KEY_ENCRYPTION_KEY or --key-file. AES-256-GCM from node:crypto;
 * nothing here is more than a thin format around it. The value's purpose is bound as associated data, so a
 * sealed value cannot be swapped into another row.
 *
 * Sealed form: `kek1:<kek id>:<iv>:<ciphertext>:<tag>` (base64url parts). The KEK id (a digest of the derived key)
 * tells a wrong KEK from a damaged value.
 */

const PREFIX = 'kek1';
/** A KEK is random material, not a password: at least 32 characters (`openssl rand -base64 32` gives 44). */
export const MIN_KEK_LENGTH = 32;

export class KeyEncryptionError extends Error {}

export interface KeyEncryptionKey {
  /** Short, public identifier of this KEK (safe to log). */
  readonly id: string;
  seal(plain: string, purpose: string): string;
  open(stored: string, purpose: string): string;
}

export const isSealed = (stored: string): boolean => stored.startsWith(`${PREFIX}:`);

export const createKeyEncryptionKey = (material: string): KeyEncryptionKey => {
  const secret = material.trim();
  if (secret.length < MIN_KEK_LENGTH)
    throw new KeyEncryptionError(
      `The key-encryption key must be at least ${MIN_KEK_LENGTH} characters of random material (e.g. \`openssl rand -base64 32\`).`,
    );
  const key = Buffer.from(hkdfSync('sha256', secret, 'larder-kek-v1', 'larder key encryption', 32));
  const id = createHmac('sha256', key).update('kek id').digest('base64url').slice(0, 12);
  return {
    id,
    seal: (plain, purpose) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [PREFIX, id, iv, body, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join(':');
    },
    open: (stored, purpose) => {
      const [prefix, storedId, iv, body, tag] = stored.split(':');
      if (prefix !== PREFIX || iv === undefined || body === undefined || tag === undefined)
        throw new KeyEncryptionError(`The stored ${purpose} is not a sealed value.`);
      if (storedId !== id)
        throw new KeyEncryptionError(
          `The ${purpose} was encrypted with another key-encryption key (id ${storedId}; the one given has id ${id}). Start with the key-encryption key this database was first given.`,
        );
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(purpose));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new KeyEncryptionError(
          `The stored ${purpose} is damaged: it does not decrypt under this key-encryption key.`,
        );
      }
    },
  };
};
