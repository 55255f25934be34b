import { INVENTORY_HISTORY, type RecordKind, type RecordRow } from '../../src/records/kinds.js';
import type { ImportSessionOptions, Store } from '../../src/storage/store.js';

/** The store as the code under test sees it, with `onPut` called before each inventory batch is written. */
export const interceptInventoryPuts = (store: Store, onPut: (rows: readonly RecordRow[]) => void): Store => ({
  ...store,
  records: {
    ...store.records,
    beginImport: async (location: { id: string; name?: string }, options?: ImportSessionOptions) => {
      const session = await store.records.beginImport(location, options);
      return {
        ...session,
        put: async (kind: RecordKind, rows: readonly RecordRow[]) => {
          if (kind === INVENTORY_HISTORY) onPut(rows);
          await session.put(kind, rows);
        },
      };
    },
  },
});
