import { StoreError } from '../shared/errors.js';
import type { ClockSetting } from '../shared/virtual-clock.js';
import type {
  DatabaseKind,
  LiveDemoState,
  PullState,
  Setting,
  SettingsStore,
  UpdatableSetting,
} from './store.js';

/** A backend's raw settings table: text values by name. */
export interface NamedValues {
  get(name: string): Promise<string | undefined>;
  /** Several values at once, atomically. */
  set(values: readonly (readonly [name: string, value: string])[]): Promise<void>;
  /** Sets the value unless one exists; returns the value that is stored. */
  ensure(name: string, value: string): Promise<string>;
  /** Sets the value only if the stored one is `expected` (undefined: none stored); true when it did. */
  swap(name: string, expected: string | undefined, value: string): Promise<boolean>;
}

/** Tries of an update that other instances keep changing under it: a few at most, in a sandbox driven by tests. */
const MAX_SWAPS = 20;

/** The stored names: existing databases hold these, so they never change. */
const NAMES = {
  pageTokenSecret: 'page_token_secret',
  clientSecretHashKey: 'auth.clientSecretHashKey',
  maxTokenTtlSeconds: 'auth.maxTokenTtlSeconds',
  demoClientId: 'demo.clientId',
  demoClientSecret: 'demo.clientSecret',
  benchDataset: 'bench.dataset',
  clock: 'sandbox.clock',
  demoAdminToken: 'demo.adminToken',
  liveDemo: 'demo.live',
  databaseKind: 'database.kind',
  /** Followed by the local location id. */
  pullState: 'pull.',
} as const;

const textSetting = (values: NamedValues, name: string): Setting<string> => ({
  get: () => values.get(name),
  set: (value) => values.set([[name, value]]),
  ensure: (candidate) => values.ensure(name, candidate),
});

const numberSetting = (values: NamedValues, name: string): Setting<number> => ({
  get: async () => {
    const text = await values.get(name);
    return text === undefined ? undefined : Number(text);
  },
  set: (value) => values.set([[name, String(value)]]),
  ensure: async (candidate) => Number(await values.ensure(name, String(candidate))),
});

const jsonSetting = <T>(values: NamedValues, name: string): Setting<T> => ({
  get: async () => {
    const text = await values.get(name);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  },
  set: (value) => values.set([[name, JSON.stringify(value)]]),
  ensure: async (candidate) => JSON.parse(await values.ensure(name, JSON.stringify(candidate))) as T,
});

/** Read, change, and store only if nobody stored another value meanwhile (else read again): no lost update. */
const updatableJsonSetting = <T>(values: NamedValues, name: string): UpdatableSetting<T> => ({
  ...jsonSetting<T>(values, name),
  update: async (change) => {
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const text = await values.get(name);
      const next = change(text === undefined ? undefined : (JSON.parse(text) as T));
      if (await values.swap(name, text, JSON.stringify(next))) return next;
    }
    throw new StoreError('STORE_LOCKED', `Setting ${name} kept changing while being updated.`);
  },
});

export const createSettingsStore = (values: NamedValues): SettingsStore => ({
  pageTokenSecret: textSetting(values, NAMES.pageTokenSecret),
  clientSecretHashKey: textSetting(values, NAMES.clientSecretHashKey),
  maxTokenTtlSeconds: numberSetting(values, NAMES.maxTokenTtlSeconds),
  demoClient: {
    get: async () => {
      const [clientId, clientSecret] = await Promise.all([
        values.get(NAMES.demoClientId),
        values.get(NAMES.demoClientSecret),
      ]);
      return clientId === undefined || clientSecret === undefined ? undefined : { clientId, clientSecret };
    },
    set: ({ clientId, clientSecret }) =>
      values.set([
        [NAMES.demoClientId, clientId],
        [NAMES.demoClientSecret, clientSecret],
      ]),
    ensure: async (candidate) => {
      const clientId = await values.ensure(NAMES.demoClientId, candidate.clientId);
      const clientSecret = await values.ensure(NAMES.demoClientSecret, candidate.clientSecret);
      return { clientId, clientSecret };
    },
  },
  benchDataset: textSetting(values, NAMES.benchDataset),
  clock: updatableJsonSetting<ClockSetting>(values, NAMES.clock),
  demoAdminToken: textSetting(values, NAMES.demoAdminToken),
  liveDemo: jsonSetting<LiveDemoState>(values, NAMES.liveDemo),
  databaseKind: textSetting(values, NAMES.databaseKind) as Setting<DatabaseKind>,
  pullState: (locationId) => jsonSetting<PullState>(values, `${NAMES.pullState}${locationId}`),
});
