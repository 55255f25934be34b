import type { JournalEntry } from './journal-entry.js';

export interface JournalFilter {
  clientId?: string;
  location?: string;
  operation?: string;
  /** An exact status (`429`) or a class (`4xx`). */
  status?: string;
  /** Entries at or after this virtual epoch ms. */
  sinceMs?: number;
  /** At most this many, the newest that match (still oldest first). */
  limit?: number;
}

/** An entry as recorded: its ISO `time` is made when read, its `seq` when recorded. */
export type RecordedEntry = Omit<JournalEntry, 'seq' | 'time'> & { seq?: number };

export interface Journal {
  readonly capacity: number;
  /** Keeps `entry` itself (no copy): the caller hands it over. */
  record(entry: RecordedEntry): void;
  /** Matching entries, oldest first. */
  list(filter?: JournalFilter): JournalEntry[];
  clear(): void;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;

const statusMatches = (wanted: string, status: number): boolean =>
  /^\dxx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : Number(wanted) === status;

/** A bounded journal: a ring of the last `capacity` entries, so memory stays flat however long it runs. */
export const createJournal = (capacity = DEFAULT_JOURNAL_SIZE): Journal => {
  const ring: (RecordedEntry | undefined)[] = new Array(capacity);
  let seq = 0;
  let oldest = 0;
  return {
    capacity,
    record: (entry) => {
      entry.seq = seq;
      ring[seq % capacity] = entry;
      seq++;
      if (seq - oldest > capacity) oldest = seq - capacity;
    },
    list: (filter = {}) => {
      const found: JournalEntry[] = [];
      for (let i = oldest; i < seq; i++) {
        const entry = ring[i % capacity]!;
        if (filter.clientId !== undefined && entry.clientId !== filter.clientId) continue;
        if (filter.location !== undefined && entry.location !== filter.location) continue;
        if (filter.operation !== undefined && entry.operation !== filter.operation) continue;
        if (filter.status !== undefined && !statusMatches(filter.status, entry.status)) continue;
        if (filter.sinceMs !== undefined && entry.timeMs < filter.sinceMs) continue;
        found.push({ ...entry, seq: entry.seq!, time: new Date(entry.timeMs).toISOString() });
      }
      return filter.limit === undefined ? found : found.slice(Math.max(found.length - filter.limit, 0));
    },
    clear: () => {
      ring.fill(undefined);
      oldest = seq;
    },
  };
};
