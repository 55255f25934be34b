import { LarderError } from '../shared/errors.js';
import type { Journal, JournalFilter } from './journal.js';
import type { JournalEntry } from './journal-entry.js';

/**
 * What the admin API reads and clears: this process's journal, or, under `--workers N`, every worker's, merged.
 * A sandbox user runs one server, so the journal they query must cover all of it, whichever worker answers.
 */
export interface JournalView {
  list(filter?: JournalFilter): Promise<JournalRead>;
  clear(): Promise<void>;
  /** False with `--journal-size 0`: a clear then says nothing is recorded, not that the journal is empty. */
  readonly recording: boolean;
}

/**
 * Matching entries, oldest first, and how many entries (of any client) the journal dropped since it was last
 * cleared: a report or a listing over a journal that wrapped covers only the newest traffic, and says so.
 */
export interface JournalRead {
  entries: JournalEntry[];
  dropped: number;
}

const readJournal = (journal: Journal, filter?: JournalFilter): JournalRead => ({
  entries: journal.list(filter),
  dropped: journal.dropped(),
});

export const localJournalView = (journal: Journal): JournalView => ({
  list: async (filter) => readJournal(journal, filter),
  clear: async () => journal.clear(),
  recording: true,
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
  recording: false,
};

/** Reads of several journals as one: entries oldest first (ties by worker order), at most `limit`; drops summed. */
export const mergeJournals = (parts: readonly JournalRead[], limit: number | undefined): JournalRead => {
  const merged = parts.flatMap((part) => part.entries).sort((a, b) => a.timeMs - b.timeMs);
  return {
    entries: limit === undefined ? merged : merged.slice(Math.max(merged.length - limit, 0)),
    dropped: parts.reduce((sum, part) => sum + part.dropped, 0),
  };
};

/** Messages between a worker that was asked and the primary that asks every worker. */
export type JournalMessage =
  | { larder: 'journal:ask'; id: number; op: 'list' | 'clear'; filter?: JournalFilter }
  | { larder: 'journal:collect'; id: number; op: 'list' | 'clear'; filter?: JournalFilter }
  | { larder: 'journal:part'; id: number; read: JournalRead }
  | { larder: 'journal:answer'; id: number; read: JournalRead };

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
  const waiting = new Map<number, (read: JournalRead) => void>();
  channel.on('message', (message) => {
    if (!isJournalMessage(message)) return;
    if (message.larder === 'journal:collect') {
      // Each part whole: the limit applies to the merged list.
      const { limit: _limit, ...filter } = message.filter ?? {};
      if (message.op === 'clear') journal.clear();
      const read = message.op === 'list' ? readJournal(journal, filter) : { entries: [], dropped: 0 };
      channel.send?.({ larder: 'journal:part', id: message.id, read } satisfies JournalMessage);
    } else if (message.larder === 'journal:answer') {
      waiting.get(message.id)?.(message.read);
      waiting.delete(message.id);
    }
  });
  const ask = (op: 'list' | 'clear', filter?: JournalFilter) =>
    new Promise<JournalRead>((resolve) => {
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
    recording: true,
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
  const collecting = new Map<number, { parts: JournalRead[]; expected: number; finish: () => void }>();
  onMessage((worker, message) => {
    if (!isJournalMessage(message)) return;
    if (message.larder === 'journal:ask') {
      const id = next++;
      const all = workers();
      const parts: JournalRead[] = [];
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        collecting.delete(id);
        worker.send({
          larder: 'journal:answer',
          id: message.id,
          read: mergeJournals(parts, undefined),
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
      pending.parts.push(message.read);
      if (pending.parts.length >= pending.expected) pending.finish();
    }
  });
};
