import type { ImportSessionOptions, InventoryRecord, Store } from '../../src/storage/store.js';

/** The store as the code under test sees it, with `onPut` called before each inventory batch is written. */
export const interceptInventoryPuts = (
  store: Store,
  onPut: (rows: readonly InventoryRecord[]) => void,
): Store =>
  Object.create(store, {
    beginImport: {
      value: async (location: { id: string; name?: string }, options?: ImportSessionOptions) => {
        const session = await store.beginImport(location, options);
        return {
          ...session,
          putInventoryEntries: async (rows: readonly InventoryRecord[]) => {
            onPut(rows);
            await session.putInventoryEntries(rows);
          },
        };
      },
    },
  });
