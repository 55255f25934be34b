import { LarderError } from '../shared/errors.js';
import type { Journal, JournalFilter } from './journal.js';
import type { JournalEntry } from './journal-entry.js';

/**
 * What the admin API reads and clears: this process's journal, or, under `--workers N`, every worker's, merged.
 * A sandbox user runs one server, so the journal they query must cover all of it, whichever worker answers.
 */
export interface JournalView {
  list(filter?: JournalFilter): Promise<JournalEntry[]>;
  clear(): Promise<void>;
}

export const localJournalView = (journal: Journal): JournalView => ({
  list: async (filter) => journal.list(filter),
  clear: async () => journal.clear(),
});

/**
 * The view with the journal off (`--journal-size 0`): listing is a 409 saying so, since an empty list (or a clean
 * report) would claim a silence that was never recorded; clearing has nothing to do, so a suite that clears before
 * each test runs on unchanged.
 */
export const journalOffView: JournalView = {
  list: async () => {
    throw new LarderError('ERR_JOURNAL_OFF');
  },
  clear: async () => {},
};

/** Entries of several journals as one, oldest first (ties by worker order), at most `limit`. */
export const mergeJournals = (
  parts: readonly JournalEntry[][],
  limit: number | undefined,
): JournalEntry[] => {
  const merged = parts.flat().sort((a, b) => a.timeMs - b.timeMs);
  return limit === undefined ? merged : merged.slice(Math.max(merged.length - limit, 0));
};

/** Messages between a worker that was asked and the primary that asks every worker. */
export type JournalMessage =
  | { larder: 'journal:ask'; id: number; op: 'list' | 'clear'; filter?: JournalFilter }
  | { larder: 'journal:collect'; id: number; op: 'list' | 'clear'; filter?: JournalFilter }
  | { larder: 'journal:part'; id: number; entries: JournalEntry[] }
  | { larder: 'journal:answer'; id: number; entries: JournalEntry[] };

const isJournalMessage = (message: unknown): message is JournalMessage =>
  typeof message === 'object' &&
  message !== null &&
  typeof (message as { larder?: unknown }).larder === 'string' &&
  (message as { larder: string }).larder.startsWith('journal:');

interface ProcessLike {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * A worker's view: asks the primary, which collects every worker's part (this one's included) and answers. Each
 * worker also answers the primary's collect requests from its own journal.
 */
export const clusterJournalView = (journal: Journal, channel: ProcessLike): JournalView => {
  let next = 0;
  const waiting = new Map<number, (entries: JournalEntry[]) => void>();
  channel.on('message', (message) => {
    if (!isJournalMessage(message)) return;
    if (message.larder === 'journal:collect') {
      // Each part whole: the limit applies to the merged list.
      const { limit: _limit, ...filter } = message.filter ?? {};
      const entries = message.op === 'list' ? journal.list(filter) : [];
      if (message.op === 'clear') journal.clear();
      channel.send?.({ larder: 'journal:part', id: message.id, entries } satisfies JournalMessage);
    } else if (message.larder === 'journal:answer') {
      waiting.get(message.id)?.(message.entries);
      waiting.delete(message.id);
    }
  });
  const ask = (op: 'list' | 'clear', filter?: JournalFilter) =>
    new Promise<JournalEntry[]>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      channel.send?.({
        larder: 'journal:ask',
        id,
        op,
        ...(filter === undefined ? {} : { filter }),
      } satisfies JournalMessage);
    });
  return {
    list: async (filter = {}) => mergeJournals([await ask('list', filter)], filter.limit),
    clear: async () => {
      await ask('clear');
    },
  };
};

interface WorkerLike {
  readonly id: number;
  send(message: unknown): unknown;
}

/** How long the primary waits for a worker's part before answering with the others'. */
const COLLECT_TIMEOUT_MS = 2000;

/**
 * The primary's side: a worker asks, every live worker answers with its part, the asker gets them merged.
 * `workers()` lists the live workers; `onMessage` registers for worker messages (cluster.on('message')).
 */
export const serveClusterJournal = (
  workers: () => readonly WorkerLike[],
  onMessage: (listener: (worker: WorkerLike, message: unknown) => void) => void,
): void => {
  let next = 0;
  const collecting = new Map<number, { parts: JournalEntry[][]; expected: number; finish: () => void }>();
  onMessage((worker, message) => {
    if (!isJournalMessage(message)) return;
    if (message.larder === 'journal:ask') {
      const id = next++;
      const all = workers();
      const parts: JournalEntry[][] = [];
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        collecting.delete(id);
        worker.send({
          larder: 'journal:answer',
          id: message.id,
          entries: mergeJournals(parts, undefined),
        } satisfies JournalMessage);
      };
      const timer = setTimeout(finish, COLLECT_TIMEOUT_MS);
      collecting.set(id, { parts, expected: all.length, finish });
      for (const each of all)
        each.send({
          larder: 'journal:collect',
          id,
          op: message.op,
          ...(message.filter === undefined ? {} : { filter: message.filter }),
        } satisfies JournalMessage);
    } else if (message.larder === 'journal:part') {
      const pending = collecting.get(message.id);
      if (pending === undefined) return;
      pending.parts.push(message.entries);
      if (pending.parts.length >= pending.expected) pending.finish();
    }
  });
};
