/** A bounded map that evicts the least recently used entry, relying on Map's insertion order. */
export interface LruCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  readonly size: number;
}

export const createLruCache = <K, V>(maxEntries: number): LruCache<K, V> => {
  const entries = new Map<K, V>();
  return {
    get: (key) => {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set: (key, value) => {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
    },
    delete: (key) => {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
};
