import type { Metrics } from '../shared/metrics.js';
import type { ImportSession, Store } from './store.js';

type Role = 'records' | 'locations' | 'auth';
const ROLES: readonly Role[] = ['records', 'locations', 'auth'];

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * A store whose calls are timed into `larder_store_query_duration_seconds` and whose imports are counted. A
 * Proxy rather than a hand-written wrapper per method: the contract has dozens of methods on two backends, and
 * one that was added later must not go unmeasured. Calls that return no promise (scan) pass through.
 */
export const instrumentStore = (store: Store, metrics: Metrics): Store => {
  const timed = <T extends object>(role: Role, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          const stop = performance.now();
          const result = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (!isThenable(result)) return result;
          const observe = (outcome: 'ok' | 'error') =>
            metrics.storeQueryDuration.observe(
              { role, method: property, outcome },
              (performance.now() - stop) / 1000,
            );
          return Promise.resolve(result).then(
            (answer) => {
              observe('ok');
              return property === 'beginImport' ? countedImport(answer as ImportSession) : answer;
            },
            (error: unknown) => {
              observe('error');
              throw error;
            },
          );
        };
      },
    });
  const countedImport = (session: ImportSession): ImportSession => ({
    put: (kind, rows) => session.put(kind, rows),
    commit: async () => {
      try {
        const counts = await session.commit();
        metrics.imports.inc({ outcome: 'committed' });
        for (const [kind, count] of Object.entries(counts))
          if (typeof count === 'number') metrics.importedRecords.inc({ kind }, count);
        return counts;
      } catch (error) {
        metrics.imports.inc({ outcome: 'failed' });
        throw error;
      }
    },
    rollback: async () => {
      metrics.imports.inc({ outcome: 'rolled_back' });
      await session.rollback();
    },
  });
  const wrapped = Object.fromEntries(ROLES.map((role) => [role, timed(role, store[role])])) as Pick<
    Store,
    Role
  >;
  const { poolState } = store;
  if (poolState !== undefined) metrics.watchPool(() => poolState.call(store));
  return new Proxy(store, {
    get: (object, property, receiver) =>
      typeof property === 'string' && property in wrapped
        ? wrapped[property as Role]
        : Reflect.get(object, property, receiver),
  });
};
