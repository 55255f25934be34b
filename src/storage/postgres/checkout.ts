import type pg from 'pg';
import { isUnavailableError, toStoreError } from './pg-errors.js';

export interface Checkout {
  client: pg.PoolClient;
  /** Returns the connection to the pool; one that failed with a connection error is dropped instead. */
  release(error?: unknown): void;
}

/**
 * Takes a connection for several statements (a transaction or an import). While checked out, the pool no longer
 * listens for errors on it, so a connection dying between two statements would be an uncaught 'error' event that
 * ends the process; the listener below absorbs it, and the next statement on the connection reports the loss.
 * `closing` says whether the store began closing meanwhile (see toStoreError).
 */
export const checkout = async (pool: pg.Pool, closing: () => boolean = () => false): Promise<Checkout> => {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toStoreError(error, closing());
  }
  const absorb = (): void => {};
  client.on('error', absorb);
  return {
    client,
    release: (error) => {
      client.off('error', absorb);
      client.release(error !== undefined && isUnavailableError(error));
    },
  };
};
