import { isSealed, KeyEncryptionError, type KeyEncryptionKey } from '../shared/key-encryption.js';
import type { Setting, SettingsStore, SigningKeyRecord, Store } from './store.js';

/**
 * The store as every caller sees it: private signing keys, the HMAC secrets (page tokens, client-secret hashes)
 * and a demo database's demo client secret and admin token (kept so `serve` can print them again) are sealed
 * under the key-encryption key on the way in and opened on the way out, on both backends. Given a KEK, values
 * still in the clear (a database from before, or started without one) are sealed at once. Without one, reading a
 * sealed value fails with a message saying what is missing.
 */

const SECRET_SETTINGS = ['pageTokenSecret', 'clientSecretHashKey', 'demoAdminToken'] as const;
/** The demo client's id stays in the clear (it is no secret); only its secret is sealed, under this purpose. */
const DEMO_CLIENT_SECRET = 'demoClientSecret';

const keyPurpose = (kid: string) => `signing key ${kid}`;

const missingKek = (what: string) =>
  new KeyEncryptionError(
    `This database's ${what} is encrypted: give its key-encryption key (LARDER_KEY_ENCRYPTION_KEY or --key-file).`,
  );

const sealing = (purpose: string, kek: KeyEncryptionKey | undefined) => ({
  open: (stored: string): string => {
    if (!isSealed(stored)) return stored;
    if (kek === undefined) throw missingKek(purpose);
    return kek.open(stored, purpose);
  },
  seal: (plain: string): string => (kek === undefined ? plain : kek.seal(plain, purpose)),
});

const sealedSetting = (inner: Setting<string>, purpose: string, kek: KeyEncryptionKey | undefined) => {
  const { open, seal } = sealing(purpose, kek);
  return {
    get: async () => {
      const stored = await inner.get();
      return stored === undefined ? undefined : open(stored);
    },
    set: (value: string) => inner.set(seal(value)),
    ensure: async (candidate: string) => open(await inner.ensure(seal(candidate))),
  } satisfies Setting<string>;
};

const sealedDemoClient = (
  inner: SettingsStore['demoClient'],
  kek: KeyEncryptionKey | undefined,
): SettingsStore['demoClient'] => {
  const { open, seal } = sealing(DEMO_CLIENT_SECRET, kek);
  const opened = (stored: { clientId: string; clientSecret: string }) => ({
    clientId: stored.clientId,
    clientSecret: open(stored.clientSecret),
  });
  return {
    get: async () => {
      const stored = await inner.get();
      return stored === undefined ? undefined : opened(stored);
    },
    set: ({ clientId, clientSecret }) => inner.set({ clientId, clientSecret: seal(clientSecret) }),
    ensure: async ({ clientId, clientSecret }) =>
      opened(await inner.ensure({ clientId, clientSecret: seal(clientSecret) })),
  };
};

export const sealSecrets = async (store: Store, kek: KeyEncryptionKey | undefined): Promise<Store> => {
  const openKey = (key: SigningKeyRecord): SigningKeyRecord => {
    if (!isSealed(key.privateJwk)) return key;
    if (kek === undefined) throw missingKek(keyPurpose(key.kid));
    return { ...key, privateJwk: kek.open(key.privateJwk, keyPurpose(key.kid)) };
  };
  const sealKey = (key: SigningKeyRecord): SigningKeyRecord =>
    kek === undefined ? key : { ...key, privateJwk: kek.seal(key.privateJwk, keyPurpose(key.kid)) };

  const settings = { ...store.settings };
  for (const name of SECRET_SETTINGS) settings[name] = sealedSetting(store.settings[name], name, kek);
  settings.demoClient = sealedDemoClient(store.settings.demoClient, kek);
  const sealed: Store = {
    records: store.records,
    locations: store.locations,
    capabilities: store.capabilities,
    describe: () => store.describe(),
    ping: () => store.ping(),
    close: () => store.close(),
    // The pool gauges (/metrics) read through the wrapper too.
    ...(store.poolState === undefined ? {} : { poolState: () => store.poolState!() }),
    settings,
    auth: {
      ...store.auth,
      listSigningKeys: async () => (await store.auth.listSigningKeys()).map(openKey),
      rotateSigningKey: async (key) => {
        // Without the KEK, a new key in a sealed database would be stored in the clear, and be the active one.
        if (kek === undefined) (await store.auth.listSigningKeys()).forEach(openKey);
        await store.auth.rotateSigningKey(sealKey(key));
      },
    },
  };

  // Without a KEK, a sealed value fails when it is read (`serve` reads them all at start), so commands that
  // never touch key material (import, check, locations) work on a sealed database without one.
  if (kek === undefined) return sealed;
  // With one, everything is checked and sealed at open: a wrong KEK fails at start, not at the first login.
  const keys = await store.auth.listSigningKeys();
  for (const key of keys) {
    const plain = openKey(key);
    if (kek !== undefined && !isSealed(key.privateJwk))
      await store.auth.sealSigningKey(key.kid, sealKey(plain).privateJwk);
  }
  for (const name of SECRET_SETTINGS) {
    const stored = await store.settings[name].get();
    if (stored === undefined) continue;
    const plain = await settings[name].get();
    if (!isSealed(stored) && plain !== undefined) await settings[name].set(plain);
  }
  const demo = await store.settings.demoClient.get();
  const demoPlain = await settings.demoClient.get();
  if (demo !== undefined && !isSealed(demo.clientSecret) && demoPlain !== undefined)
    await settings.demoClient.set(demoPlain);
  return sealed;
};

/**
 * Reads every value `sealed` (a store from sealSecrets) keeps sealed. Without the KEK, a database holding sealed
 * ones fails here with the message saying what is missing: `serve` calls it before it says whether key material is
 * encrypted at rest, and before it changes anything.
 */
export const readKeyMaterial = async (sealed: Store): Promise<void> => {
  await sealed.auth.listSigningKeys();
  for (const name of SECRET_SETTINGS) await sealed.settings[name].get();
};
