import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import { type ClientGrant, toClientGrant } from './client-grants.js';
import { type KeyRing, keyRingFingerprint, loadKeyRing } from './key-ring.js';

/**
 * This instance's in-memory view of clients and signing keys. It reloads whenever the store's authVersion
 * changes (polled), so revocations, grant changes and rotations made by other instances or the CLI apply
 * within a second, to tokens already issued too.
 */
export interface AuthState {
  keys(): KeyRing;
  /** Synchronous, from memory. */
  client(clientId: string): ClientGrant | undefined;
  /** For clients created after the last reload: reads the store and remembers the result. */
  lookupClient(clientId: string): Promise<ClientGrant | undefined>;
  /** Reloads if authVersion changed (or always, with `force`). Concurrent calls share one reload. */
  refresh(force?: boolean): Promise<void>;
  /** Forced reload for a token signed with a kid we do not know yet; at most once per second. */
  reloadForUnknownKey(): Promise<boolean>;
  /** One poll: a refresh whose failure is logged (once per outage) rather than thrown. */
  pollOnce(): Promise<void>;
  /**
   * Runs `pollOnce` every `intervalMs`; returns a stop function: no poll starts after it is called, and it
   * resolves once the poll in flight has ended, which logs nothing then (its store may be closing under it).
   */
  startPolling(intervalMs: number): () => Promise<void>;
}

const UNKNOWN_KEY_RELOAD_INTERVAL_MS = 1000;

export const createAuthState = async ({
  store,
  clock,
  logger,
}: {
  store: Store;
  clock: Clock;
  logger: Logger;
}): Promise<AuthState> => {
  let version: number | undefined;
  let keyRing: KeyRing | undefined;
  let clients = new Map<string, ClientGrant>();
  let inFlight: Promise<void> | undefined;
  let lastForcedAt = Number.NEGATIVE_INFINITY;

  const reload = async (force: boolean): Promise<void> => {
    // Read the version first: a change that lands during the reload is picked up by the next poll.
    const current = await store.auth.version();
    if (!force && current === version) return;
    const [records, keys] = await Promise.all([store.auth.listClients(), store.auth.listSigningKeys()]);
    clients = new Map(records.map((record) => [record.clientId, toClientGrant(record)]));
    if (keyRing === undefined || keyRing.fingerprint !== keyRingFingerprint(keys)) {
      keyRing = await loadKeyRing(keys);
      logger.info('auth signing keys loaded', {
        activeKid: keyRing.signingKid,
        keys: keyRing.jwks.keys.length,
      });
    }
    version = current;
  };

  const refresh = (force = false): Promise<void> => {
    // A running reload may have skipped on an unchanged version; a forced caller must see a fresh one.
    if (inFlight !== undefined && force) return inFlight.then(() => refresh(true));
    if (inFlight === undefined)
      inFlight = reload(force).finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  await refresh(true);

  // Log an outage once and its end once, not four lines a second; cached tokens keep being served.
  let failing = false;
  const poll = (stopped: () => boolean): Promise<void> =>
    refresh().then(
      () => {
        if (stopped()) return;
        if (failing) logger.info('auth state reload recovered');
        failing = false;
      },
      (error: unknown) => {
        if (stopped()) return;
        if (!failing)
          logger.warn('auth state reload failing; serving the last known clients and keys', { error });
        failing = true;
      },
    );

  return {
    keys: () => keyRing as KeyRing,
    client: (clientId) => clients.get(clientId),
    lookupClient: async (clientId) => {
      const record = await store.auth.getClient(clientId);
      if (record === undefined) return undefined;
      const grant = toClientGrant(record);
      clients.set(clientId, grant);
      return grant;
    },
    refresh,
    reloadForUnknownKey: async () => {
      if (clock.now() - lastForcedAt < UNKNOWN_KEY_RELOAD_INTERVAL_MS) return false;
      lastForcedAt = clock.now();
      await refresh(true);
      return true;
    },
    pollOnce: () => poll(() => false),
    startPolling: (intervalMs) => {
      let timer: NodeJS.Timeout | undefined;
      let stopped = false;
      let polling: Promise<void> = Promise.resolve();
      const tick = (): void => {
        polling = poll(() => stopped).finally(() => {
          if (!stopped) timer = setTimeout(tick, intervalMs).unref();
        });
      };
      timer = setTimeout(tick, intervalMs).unref();
      return () => {
        stopped = true;
        clearTimeout(timer);
        return polling;
      };
    },
  };
};
