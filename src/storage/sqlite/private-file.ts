import { closeSync, openSync } from 'node:fs';

/**
 * Creates the database file owner-only (0600) before SQLite opens it: it holds the signing keys and secrets.
 * SQLite gives the -wal and -shm files it creates the database file's permissions, so they follow. An existing
 * file keeps the permissions its owner gave it.
 */
export const ensurePrivateFile = (path: string): void => {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  closeSync(openSync(path, 'a', 0o600));
};
