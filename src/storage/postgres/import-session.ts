import { RECORD_KINDS, zeroCounts } from '../../records/kinds.js';
import { StoreError } from '../../shared/errors.js';
import type { ImportCounts, ImportSession } from '../store.js';
import type { Checkout } from './checkout.js';
import { toStoreError } from './pg-errors.js';
import { upsertRecords } from './upsert-records.js';

/**
 * An import holds one pooled connection and one open transaction from begin to commit or rollback: readers on
 * other connections see the location as it was until COMMIT, and any failure rolls everything back. After a failed
 * statement the transaction is dead, so the session refuses further puts and commit rolls back.
 */
const ANALYZE_AFTER_ROWS = 10_000;

export const postgresImportSession = (
  { client, release }: Checkout,
  locationId: string,
  onClosed: () => void,
  /** Whether the store is closing: it rolls open sessions back, which their caller learns as STORE_CLOSED. */
  storeClosing: () => boolean,
): ImportSession => {
  let state: 'open' | 'failed' | 'closed' = 'open';
  const counts: ImportCounts = zeroCounts();

  const finish = async (statement: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
    state = 'closed';
    onClosed();
    try {
      await client.query(statement);
      if (statement === 'COMMIT') await refreshStatistics();
      release();
    } catch (error) {
      release(error);
      throw toStoreError(error);
    }
  };

  /**
   * Until autovacuum gets to it, a bulk-loaded table has no statistics and the planner sorts whole filtered
   * ranges (measured 40x slower inventory searches). The import is committed by now: a failure here is harmless.
   */
  const refreshStatistics = async () => {
    const tables = RECORD_KINDS.filter((kind) => counts[kind.name] >= ANALYZE_AFTER_ROWS).map(
      (kind) => kind.table,
    );
    if (tables.length > 0) await client.query(`ANALYZE ${tables.join(', ')}`).catch(() => {});
  };

  const closedUnder = () =>
    new StoreError('STORE_CLOSED', 'The PostgreSQL store was closed before the import was committed.');

  const put = async (write: () => Promise<void>): Promise<void> => {
    if (state === 'closed' && storeClosing()) throw closedUnder();
    if (state !== 'open') throw new Error(`This import session is ${state}.`);
    try {
      await write();
    } catch (error) {
      state = 'failed';
      throw toStoreError(error);
    }
  };

  return {
    put: (kind, rows) =>
      put(async () => {
        await upsertRecords(client, kind, locationId, rows);
        counts[kind.name] += rows.length;
      }),
    commit: async () => {
      if (state === 'closed')
        throw storeClosing() ? closedUnder() : new Error('This import session is closed.');
      if (state === 'failed') {
        await finish('ROLLBACK');
        throw new Error('The import failed earlier and was rolled back.');
      }
      await finish('COMMIT');
      return { ...counts };
    },
    // A ROLLBACK that fails has lost its connection, and with it the transaction: nothing to report.
    rollback: async () => {
      if (state !== 'closed') await finish('ROLLBACK').catch(() => {});
    },
  };
};
