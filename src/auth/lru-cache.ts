/** A bounded map that evicts the least recently used entry, relying on Map's insertion order. */
export interface LruCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  readonly size: number;
}

interface Entry<V> {
  value: V;
  /** When the entry last moved to the young end of the order (counted in moves). */
  moved: number;
}

/**
 * A hit moves its entry to the young end only when it has drifted into the older half: moving is a delete and a
 * re-insert, each comparing the key, and the retail guard's keys are whole Authorization headers (about 800
 * characters) looked up on every request. An entry used within the last `maxEntries / 2` moves is in the younger
 * half, so it is never the one evicted: what goes is always an entry unused for at least that long.
 */
export const createLruCache = <K, V>(maxEntries: number): LruCache<K, V> => {
  const entries = new Map<K, Entry<V>>();
  const half = Math.max(1, Math.floor(maxEntries / 2));
  let moves = 0;
  const insert = (key: K, entry: Entry<V>) => {
    entry.moved = moves++;
    entries.set(key, entry);
  };
  return {
    get: (key) => {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (moves - entry.moved >= half) {
        entries.delete(key);
        insert(key, entry);
      }
      return entry.value;
    },
    set: (key, value) => {
      entries.delete(key);
      insert(key, { value, moved: 0 });
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
