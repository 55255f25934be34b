import { LarderError } from '../shared/errors.js';
import type { Journal, JournalFilter } from './journal.js';
import { byArrival, type JournalRow, type StampedEntry } from './journal-entry.js';

/**
 * What the admin API reads and clears: this process's journal, or, under `--workers N`, every worker's, merged.
 * A sandbox user runs one server, so the journal they query must cover all of it, whichever worker answers.
 */
export interface JournalView {
  list(filter?: ViewFilter): Promise<JournalRead>;
  clear(): Promise<void>;
  /** False with `--journal-size 0`: a clear then says nothing is recorded, not that the journal is empty. */
  readonly recording: boolean;
}

/**
 * Where a follower stands in each journal the view covers: a journal's id (a worker's id, `0` for a process's
 * own) and the `seq` its next entry gets. One number would not do under `--workers`: each worker numbers its
 * own entries, so a quiet worker's new entries come after a busy one's old ones. For the same reason an entry's
 * identity is its journal's id and its `seq` (`id`, `1:17`), not its `seq` alone.
 */
export type JournalCursor = Record<string, number>;

/** A listing's filter: `after` lists only entries recorded after the listing that answered that cursor. */
export type ViewFilter = Omit<JournalFilter, 'fromSeq'> & { after?: JournalCursor };

/**
 * Matching entries, oldest first, and how many entries (of any client) the journal dropped since it was last
 * cleared: a report or a listing over a journal that wrapped covers only the newest traffic, and says so.
 */
export interface JournalRead {
  entries: StampedEntry[];
  dropped: number;
  /** Where each journal stood when listed. */
  next: JournalCursor;
  /** With `after`: entries recorded after it that the journals dropped before this listing (so never listed). */
  missed?: number;
}

/** One journal's answer: its `next` and `missed` as plain numbers, keyed by the journal's id once merged. */
export interface JournalPart {
  entries: JournalRow[];
  dropped: number;
  next: number;
  missed: number;
}

/** The id of a process's own journal in a cursor. */
const OWN_JOURNAL = '0';

const readJournal = (journal: Journal, filter: JournalFilter = {}): JournalPart => ({
  entries: journal.list(filter),
  dropped: journal.dropped(),
  next: journal.next(),
  missed: filter.fromSeq === undefined ? 0 : journal.droppedFrom(filter.fromSeq),
});

/**
 * The filter one journal is asked: the cursor's `seq` for it, from its start when the cursor does not name it
 * (a worker started since).
 */
const journalFilterFor = ({ after, ...filter }: ViewFilter, id: string): JournalFilter =>
  after === undefined ? filter : { ...filter, fromSeq: after[id] ?? 0 };

export const localJournalView = (journal: Journal): JournalView => ({
  list: async (filter = {}) =>
    mergeJournals(
      [{ id: OWN_JOURNAL, part: readJournal(journal, journalFilterFor(filter, OWN_JOURNAL)) }],
      filter,
    ),
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

/**
 * Several journals' answers as one: entries oldest first (`byArrival`: those of one instant in the order they were
 * answered, whichever worker answered them), each with its `id` (the journal's id and its `seq`, as in the cursor),
 * at most `filter.limit`; drops summed, and `missed` when the filter had `after`.
 */
export const mergeJournals = (
  parts: readonly { id: string; part: JournalPart }[],
  filter: Pick<ViewFilter, 'limit' | 'after'>,
): JournalRead => {
  // In worker order, not the order the parts arrived in: entries whose stamps tie then list alike every time.
  const ordered = [...parts].sort((a, b) => Number(a.id) - Number(b.id));
  const merged = ordered
    .flatMap(({ id, part }) => part.entries.map((row): StampedEntry => ({ id: `${id}:${row.seq}`, ...row })))
    .sort(byArrival);
  const read: JournalRead = {
    entries: filter.limit === undefined ? merged : merged.slice(Math.max(merged.length - filter.limit, 0)),
    dropped: ordered.reduce((sum, { part }) => sum + part.dropped, 0),
    next: Object.fromEntries(ordered.map(({ id, part }) => [id, part.next])),
  };
  if (filter.after !== undefined) read.missed = ordered.reduce((sum, { part }) => sum + part.missed, 0);
  return read;
};

/** Messages between a worker that was asked and the primary that asks every worker. */
export type JournalMessage =
  | { larder: 'journal:ask'; id: number; op: 'list' | 'clear'; filter?: ViewFilter }
  | { larder: 'journal:collect'; id: number; op: 'list' | 'clear'; filter?: JournalFilter }
  | { larder: 'journal:part'; id: number; read: JournalPart }
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
      const read =
        message.op === 'list'
          ? readJournal(journal, filter)
          : { entries: [], dropped: 0, next: journal.next(), missed: 0 };
      channel.send?.({ larder: 'journal:part', id: message.id, read } satisfies JournalMessage);
    } else if (message.larder === 'journal:answer') {
      waiting.get(message.id)?.(message.read);
      waiting.delete(message.id);
    }
  });
  const ask = (op: 'list' | 'clear', filter?: ViewFilter) =>
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
    list: (filter = {}) => ask('list', filter),
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
  const collecting = new Map<
    number,
    { parts: { id: string; part: JournalPart }[]; expected: number; finish: () => void }
  >();
  onMessage((worker, message) => {
    if (!isJournalMessage(message)) return;
    if (message.larder === 'journal:ask') {
      const id = next++;
      const all = workers();
      const parts: { id: string; part: JournalPart }[] = [];
      const filter = message.filter ?? {};
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        collecting.delete(id);
        const read = mergeJournals(parts, filter);
        // A live worker that did not answer in time keeps its place: from its start, the next listing would
        // repeat everything it holds.
        for (const each of all) {
          const at = filter.after?.[String(each.id)];
          if (at !== undefined && read.next[String(each.id)] === undefined) read.next[String(each.id)] = at;
        }
        worker.send({ larder: 'journal:answer', id: message.id, read } satisfies JournalMessage);
      };
      const timer = setTimeout(finish, COLLECT_TIMEOUT_MS);
      collecting.set(id, { parts, expected: all.length, finish });
      for (const each of all)
        each.send({
          larder: 'journal:collect',
          id,
          op: message.op,
          ...(message.filter === undefined ? {} : { filter: journalFilterFor(filter, String(each.id)) }),
        } satisfies JournalMessage);
    } else if (message.larder === 'journal:part') {
      const pending = collecting.get(message.id);
      if (pending === undefined) return;
      pending.parts.push({ id: String(worker.id), part: message.read });
      if (pending.parts.length >= pending.expected) pending.finish();
    }
  });
};
