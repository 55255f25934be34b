import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createClientCredentials,
  deleteClient,
  renameClient,
  restoreClient,
  revokeClient,
  rotateClientSecret,
  unknownGrantedLocations,
} from '../../src/auth/clients.js';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const LOGIN = '/authentication/v1/authentication/login';

for (const backend of await backends()) {
  describeBackend(
    `a client's life: rename, rotate-secret, revoke, restore, delete (${backend.name})`,
    backend,
    () => {
      let db: BackendInstance;
      let larder: LarderApp;
      before(async () => {
        db = await backend.create();
        await db.store.locations.upsert({ id: 'loc-1' });
        larder = await createApp({
          store: db.store,
          clock: createTestClock(),
          logger: silentLogger,
          config: {
            publicUrl: 'http://larder.test',
            tokenTtlSeconds: 3600,
            trustProxy: false,
            loginThrottle: 'off',
          },
        });
      });
      after(() => db.destroy());

      const login = async (clientId: string, clientSecret: string) => {
        await larder.auth.refresh();
        return (
          await larder.app.request(LOGIN, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
          })
        ).status;
      };

      test('each step is stored and takes effect on login', async () => {
        const created = await createClientCredentials(db.store, {
          name: 'Ops',
          locations: ['loc-1', 'loc-typo'],
        });
        assert.deepEqual(await unknownGrantedLocations(db.store, created), ['loc-typo']);
        assert.equal(await login(created.clientId, created.clientSecret), 200);

        assert.equal((await renameClient(db.store, created.clientId, ' Ops 2 ')).name, 'Ops 2');
        assert.equal((await db.store.auth.getClient(created.clientId))?.name, 'Ops 2');
        assert.equal(await login(created.clientId, created.clientSecret), 200, 'renaming keeps the secret');

        const rotated = await rotateClientSecret(db.store, created.clientId);
        assert.notEqual(rotated.clientSecret, created.clientSecret);
        assert.equal(
          await login(created.clientId, created.clientSecret),
          401,
          'the old secret stops working',
        );
        assert.equal(await login(created.clientId, rotated.clientSecret), 200);

        await revokeClient(db.store, created.clientId);
        assert.equal(await login(created.clientId, rotated.clientSecret), 401);
        assert.equal((await restoreClient(db.store, created.clientId)).revokedAt, null);
        assert.equal(
          await login(created.clientId, rotated.clientSecret),
          200,
          'a restored client logs in again',
        );

        await deleteClient(db.store, created.clientId);
        assert.equal(await db.store.auth.getClient(created.clientId), undefined);
        assert.equal(await login(created.clientId, rotated.clientSecret), 401);
        await assert.rejects(deleteClient(db.store, created.clientId), /No client with id/);
        await assert.rejects(renameClient(db.store, 'nobody', 'x'), /No client with id/);
      });
    },
  );
}
