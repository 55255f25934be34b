import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, test } from 'node:test';
import { ensureSigningKey, rotateSigningKey } from '../../src/auth/signing-keys.js';
import { importFiles } from '../../src/import/import-files.js';
import { createTestClock } from '../../src/shared/clock.js';
import { createKeyEncryptionKey, isSealed } from '../../src/shared/key-encryption.js';
import { sealSecrets } from '../../src/storage/sealed-store.js';
import type { Store } from '../../src/storage/store.js';
import { larder } from '../helpers/cli.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { readerApp } from '../helpers/reader-app.js';
import { backends, describeBackend } from './backends.js';

/**
 * Signing keys, HMAC secrets and a demo database's demo secret and admin token at rest, sealed under a
 * key-encryption key, on both backends.
 */

const KEK = createKeyEncryptionKey('a-test-key-encryption-key-of-40-characters');
const OTHER_KEK = createKeyEncryptionKey('another-key-encryption-key-40-characters!');
const clock = createTestClock(Date.UTC(2025, 0, 1));
const DEMO_CLIENT = { clientId: 'demo-id', clientSecret: 'demo-client-secret-in-the-clear' };
const DEMO_ADMIN_TOKEN = 'demo-admin-token-in-the-clear';

/** What the database itself holds: every private key and secret, as stored. */
const atRest = async (raw: Store): Promise<string[]> => [
  ...(await raw.auth.listSigningKeys()).map((key) => key.privateJwk),
  (await raw.settings.pageTokenSecret.get()) ?? '',
  (await raw.settings.clientSecretHashKey.get()) ?? '',
];

for (const backend of await backends()) {
  describeBackend(`key encryption at rest (${backend.name})`, backend, () => {
    test('with a KEK, keys and secrets are stored sealed and read back in the clear', async () => {
      const instance = await backend.create();
      try {
        const sealed = await sealSecrets(instance.store, KEK);
        const key = await ensureSigningKey(sealed, clock);
        assert.ok(!isSealed(key.privateJwk) && JSON.parse(key.privateJwk).d !== undefined);
        assert.equal(await sealed.settings.pageTokenSecret.ensure('page-secret'), 'page-secret');
        assert.equal(await sealed.settings.clientSecretHashKey.ensure('hash-key'), 'hash-key');
        for (const stored of await atRest(instance.store)) {
          assert.ok(isSealed(stored), stored);
          assert.doesNotMatch(stored, /page-secret|hash-key|"d"/);
        }
        // The whole service runs on it: a client logs in and reads.
        await sealed.locations.upsert({ id: 'loc-kek' });
        const { app, bearer } = await readerApp(sealed, 'loc-kek');
        const response = await app.request('/v1/purchaseOrders/search', {
          method: 'POST',
          headers: {
            authorization: bearer,
            'content-type': 'application/json',
            'Platform-Restaurant-External-ID': 'loc-kek',
          },
          body: '{}',
        });
        assert.equal(response.status, 200);
      } finally {
        await instance.destroy();
      }
    });

    test('a database with keys in the clear is sealed on its first start with a KEK; a wrong KEK is refused, and without one no sealed value is read', async () => {
      const instance = await backend.create();
      try {
        const before = await ensureSigningKey(instance.store, clock);
        await instance.store.settings.pageTokenSecret.ensure('clear-page-secret');
        await instance.store.settings.clientSecretHashKey.ensure('clear-hash-key');

        const sealed = await sealSecrets(instance.store, KEK);
        for (const stored of await atRest(instance.store)) assert.ok(isSealed(stored), stored);
        assert.deepEqual(await sealed.auth.listSigningKeys(), [before]);
        assert.equal(await sealed.settings.pageTokenSecret.get(), 'clear-page-secret');
        assert.equal(await sealed.settings.clientSecretHashKey.get(), 'clear-hash-key');

        await assert.rejects(sealSecrets(instance.store, OTHER_KEK), /another key-encryption key/);
        const bare = await sealSecrets(instance.store, undefined);
        await assert.rejects(bare.auth.listSigningKeys(), /encrypted: give its key-encryption key/);
        await assert.rejects(
          bare.settings.clientSecretHashKey.get(),
          /encrypted: give its key-encryption key/,
        );
        assert.deepEqual(await bare.locations.list(), []);
        // `larder keys rotate` without the KEK: refused before it writes, or the database's one key in the clear
        // would be its active key (and the command would fail after rotating).
        await assert.rejects(
          rotateSigningKey(bare, clock, 3600),
          /signing key .* is encrypted: give its key-encryption key/,
        );
        const keys = await instance.store.auth.listSigningKeys();
        assert.equal(keys.length, 1);
        assert.ok(keys.every((key) => isSealed(key.privateJwk)));
      } finally {
        await instance.destroy();
      }
    });

    test("with a KEK, the demo client's secret and the demo admin token are stored sealed and read back in the clear", async () => {
      const instance = await backend.create();
      try {
        const sealed = await sealSecrets(instance.store, KEK);
        await sealed.settings.demoClient.set(DEMO_CLIENT);
        await sealed.settings.demoAdminToken.set(DEMO_ADMIN_TOKEN);
        const raw = await instance.rawSettings();
        assert.equal(raw['demo.clientId'], DEMO_CLIENT.clientId);
        for (const name of ['demo.clientSecret', 'demo.adminToken'])
          assert.ok(isSealed(raw[name] ?? ''), `${name}: ${raw[name]}`);
        assert.doesNotMatch(JSON.stringify(raw), /in-the-clear/);

        assert.deepEqual(await sealed.settings.demoClient.get(), DEMO_CLIENT);
        assert.equal(await sealed.settings.demoAdminToken.get(), DEMO_ADMIN_TOKEN);
        // Another instance opening the same database keeps what is stored, and reads it in the clear.
        const peer = await sealSecrets(await instance.openPeer(), KEK);
        assert.deepEqual(
          await peer.settings.demoClient.ensure({ clientId: 'other-id', clientSecret: 'other-secret' }),
          DEMO_CLIENT,
        );
        assert.equal(await peer.settings.demoAdminToken.ensure('other-token'), DEMO_ADMIN_TOKEN);
      } finally {
        await instance.destroy();
      }
    });

    test('a demo database with its secret and admin token in the clear is sealed on its first start with a KEK; without one they are not read, and import still works', async () => {
      const instance = await backend.create();
      try {
        await instance.store.settings.demoClient.set(DEMO_CLIENT);
        await instance.store.settings.demoAdminToken.set(DEMO_ADMIN_TOKEN);
        await instance.store.settings.databaseKind.ensure('demo');

        const sealed = await sealSecrets(instance.store, KEK);
        const raw = await instance.rawSettings();
        for (const name of ['demo.clientSecret', 'demo.adminToken'])
          assert.ok(isSealed(raw[name] ?? ''), `${name}: ${raw[name]}`);
        assert.doesNotMatch(JSON.stringify(raw), /in-the-clear/);
        assert.deepEqual(await sealed.settings.demoClient.get(), DEMO_CLIENT);
        assert.equal(await sealed.settings.demoAdminToken.get(), DEMO_ADMIN_TOKEN);

        await assert.rejects(sealSecrets(instance.store, OTHER_KEK), /another key-encryption key/);
        const bare = await sealSecrets(instance.store, undefined);
        await assert.rejects(
          bare.settings.demoClient.get(),
          /This database's demoClientSecret is encrypted: give its key-encryption key/,
        );
        await assert.rejects(
          bare.settings.demoAdminToken.get(),
          /This database's demoAdminToken is encrypted: give its key-encryption key/,
        );
        // `import` needs no KEK, on a demo database too, and the database stays a demo one.
        const result = await importFiles(bare, {
          locationId: 'mine',
          purchaseOrders: {
            path: 'orders.json',
            input: Readable.from([JSON.stringify([purchaseOrderFixture(1, { modifiedAt: clock.now() })])]),
          },
        });
        assert.ok(result.committed, JSON.stringify(result.problems));
        assert.equal(await bare.settings.databaseKind.get(), 'demo');
      } finally {
        await instance.destroy();
      }
    });
  });
}

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A new SQLite database whose one signing key `larder keys rotate` sealed under the KEK in `keyFile`. */
const sealedDatabase = async (): Promise<{ db: string; keyFile: string }> => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-kek-'));
  dirs.push(dir);
  const db = join(dir, 'larder.db');
  const keyFile = join(dir, 'kek');
  await writeFile(keyFile, 'file-key-encryption-key-of-enough-length\n', { mode: 0o600 });
  const rotated = await larder(['keys', 'rotate', '--db', db, '--key-file', keyFile]);
  assert.equal(rotated.code, 0, rotated.stderr);
  return { db, keyFile };
};

test('the CLI: LARDER_KEY_ENCRYPTION_KEY or --key-file seals the keys; a wrong or missing one fails with a clear message', async () => {
  const { db, keyFile } = await sealedDatabase();
  const listed = await larder(['keys', 'list', '--db', db, '--key-file', keyFile]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /active/);

  // `keys retire` cuts the active key off and makes a new one; an unknown kid is a clear failure.
  const activeKid = /^(\S+) .* active$/m.exec(listed.stdout)?.[1] ?? '';
  // After `--`: a kid (a JWK thumbprint, base64url) may begin with '-', which would read as an option.
  const retired = await larder(['keys', 'retire', '--db', db, '--key-file', keyFile, '--', activeKid]);
  assert.equal(retired.code, 0, retired.stderr);
  assert.match(
    retired.stdout,
    new RegExp(`Signing key ${activeKid} is retired and verifies no token\\. New signing key \\S+ is active`),
  );
  const relisted = await larder(['keys', 'list', '--db', db, '--key-file', keyFile]);
  assert.doesNotMatch(relisted.stdout, new RegExp(activeKid));
  const unknown = await larder(['keys', 'retire', 'no-such-kid', '--db', db, '--key-file', keyFile]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No signing key no-such-kid/);

  const missing = await larder(['keys', 'list', '--db', db]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /encrypted: give its key-encryption key \(LARDER_KEY_ENCRYPTION_KEY or --key-file\)/,
  );
  const wrong = await larder(['keys', 'list', '--db', db], {
    LARDER_KEY_ENCRYPTION_KEY: 'a-different-key-encryption-key-000000000',
  });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /another key-encryption key/);
  const short = await larder(['keys', 'list', '--db', db], { LARDER_KEY_ENCRYPTION_KEY: 'short' });
  assert.equal(short.code, 1);
  assert.match(short.stderr, /at least 32 characters/);
});

test('serve without the KEK of a sealed database is refused before it changes anything, and never says its keys are NOT encrypted (one process and --workers)', async () => {
  const { db } = await sealedDatabase();
  for (const workers of ['1', '2']) {
    const served = await larder(['serve', '--db', db, '--port', '0', '--workers', workers]);
    const output = served.stdout + served.stderr;
    assert.equal(served.code, 1, output);
    assert.match(
      output,
      /cannot start: This database's signing key \S+ is encrypted: give its key-encryption key \(LARDER_KEY_ENCRYPTION_KEY or --key-file\)/,
    );
    assert.doesNotMatch(output, /NOT encrypted/);
    // Refused before the demo a database without locations would get.
    assert.doesNotMatch(output, /demo/i);
  }
  const locations = await larder(['locations', 'list', '--db', db]);
  assert.match(locations.stdout, /No locations yet/);
});

test("the sealing wrapper passes the pool's state through, so /metrics still shows the pool", async () => {
  const pool = { total: 3, idle: 2, waiting: 0 };
  const bare = { settings: {}, auth: {} } as unknown as Store;
  assert.deepEqual((await sealSecrets({ ...bare, poolState: () => pool }, undefined)).poolState?.(), pool);
  assert.equal((await sealSecrets(bare, undefined)).poolState, undefined);
});
