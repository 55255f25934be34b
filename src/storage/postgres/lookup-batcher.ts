/**
 * Coalesces the by-id lookups of one event-loop turn into one query per group (table and location): under load
 * a turn reads many requests, and one round trip for all of them costs PostgreSQL and the driver far less than
 * one each. The query runs on the next turn (setImmediate), after every request the turn read has asked.
 */
export type FetchMany<V> = (group: string, ids: readonly string[]) => Promise<Map<string, V>>;

interface Pending<V> {
  ids: string[];
  waiters: Map<string, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>;
}

export interface LookupBatcher<V> {
  get(group: string, id: string): Promise<V | undefined>;
}

export const createLookupBatcher = <V>(fetchMany: FetchMany<V>): LookupBatcher<V> => {
  let queued = new Map<string, Pending<V>>();
  let scheduled = false;

  const run = async (group: string, pending: Pending<V>): Promise<void> => {
    try {
      const found = await fetchMany(group, pending.ids);
      for (const [id, waiters] of pending.waiters)
        for (const waiter of waiters) waiter.resolve(found.get(id));
    } catch (error) {
      for (const waiters of pending.waiters.values()) for (const waiter of waiters) waiter.reject(error);
    }
  };

  const flush = (): void => {
    scheduled = false;
    const groups = queued;
    queued = new Map();
    for (const [group, pending] of groups) void run(group, pending);
  };

  return {
    get: (group, id) =>
      new Promise((resolve, reject) => {
        let pending = queued.get(group);
        if (pending === undefined) {
          pending = { ids: [], waiters: new Map() };
          queued.set(group, pending);
        }
        const waiters = pending.waiters.get(id);
        if (waiters === undefined) {
          pending.ids.push(id);
          pending.waiters.set(id, [{ resolve, reject }]);
        } else {
          waiters.push({ resolve, reject });
        }
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }),
  };
};
