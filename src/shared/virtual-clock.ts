import type { Clock } from './clock.js';

/**
 * The sandbox's virtual clock, as it is kept in the store so that every instance and worker agrees: an offset
 * from real time, or a frozen instant.
 */
export interface ClockSetting {
  offsetMs: number;
  /** When set, time stands still at this epoch ms. */
  frozenAtMs: number | null;
}

export const REAL_TIME: ClockSetting = { offsetMs: 0, frozenAtMs: null };

/** What `GET /_larder/clock` answers. */
export interface ClockView {
  now: string;
  offsetSeconds: number;
  frozen: boolean;
}

export interface ClockPersistence {
  load(): Promise<ClockSetting | undefined>;
  save(setting: ClockSetting): Promise<void>;
  /** Changes the stored setting atomically: an advance adds to what is stored, which another worker may have moved. */
  update(change: (current: ClockSetting | undefined) => ClockSetting): Promise<ClockSetting>;
}

export interface VirtualClock extends Clock {
  view(): ClockView;
  /** Jumps to `epochMs` (backwards too), frozen there or running on from it. */
  set(epochMs: number, frozen: boolean): Promise<ClockView>;
  /** Moves time forward (a frozen clock stays frozen, at the later instant). */
  advance(ms: number): Promise<ClockView>;
  /** Back to real time. */
  reset(): Promise<ClockView>;
  /** Takes up a change another instance made (polled, like revocations). */
  sync(): Promise<void>;
  /** Polls the store every `intervalMs`; returns a stop function, resolved once the sync in flight has ended. */
  startSync(intervalMs: number): () => Promise<void>;
}

/**
 * One clock drives all time-based behaviour: token issue and expiry, login token reuse, throttle and rate-limit
 * windows, and the live demo data. Changes are written to the store first, then applied, so a failed write
 * leaves every instance on the old time.
 */
export const createVirtualClock = async ({
  real,
  persistence,
}: {
  real: Clock;
  persistence: ClockPersistence;
}): Promise<VirtualClock> => {
  let setting = (await persistence.load()) ?? REAL_TIME;
  const now = (): number => setting.frozenAtMs ?? real.now() + setting.offsetMs;
  const view = (): ClockView => {
    const current = now();
    return {
      now: new Date(current).toISOString(),
      offsetSeconds: Math.round((current - real.now()) / 1000),
      frozen: setting.frozenAtMs !== null,
    };
  };
  const apply = async (next: ClockSetting): Promise<ClockView> => {
    await persistence.save(next);
    setting = next;
    return view();
  };
  const sync = async (): Promise<void> => {
    setting = (await persistence.load()) ?? REAL_TIME;
  };
  return {
    now,
    view,
    set: (epochMs, frozen) =>
      apply(
        frozen ? { offsetMs: 0, frozenAtMs: epochMs } : { offsetMs: epochMs - real.now(), frozenAtMs: null },
      ),
    advance: async (ms) => {
      setting = await persistence.update((current = REAL_TIME) =>
        current.frozenAtMs === null
          ? { offsetMs: current.offsetMs + ms, frozenAtMs: null }
          : { offsetMs: 0, frozenAtMs: current.frozenAtMs + ms },
      );
      return view();
    },
    reset: () => apply(REAL_TIME),
    sync,
    startSync: (intervalMs) => {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let syncing: Promise<void> = Promise.resolve();
      const tick = (): void => {
        // A store outage keeps the last known time; the next poll tries again.
        syncing = sync()
          .catch(() => {})
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, intervalMs).unref();
          });
      };
      timer = setTimeout(tick, intervalMs).unref();
      return () => {
        stopped = true;
        clearTimeout(timer);
        return syncing;
      };
    },
  };
};

/** Parses a duration as the clock CLI takes it: `1d`, `2h`, `15m`, `90s` (and sums like `1d2h`). */
export const parseDuration = (text: string): number | undefined => {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (match === null || text.trim() === '') return undefined;
  const [, d = '0', h = '0', m = '0', s = '0'] = match;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(m)) * 60 + Number(s);
};
