import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// A body that is not UTF-8 is a 400 saying so, not U+FFFD matched or stored as if sent: over node:http and in process.
const ADMIN = 'utf8-body-admin-token-000000';
const latin1 = (text: string) => Buffer.from(text, 'latin1');

let running: TestServer;
let store: Store;
let larder: LarderApp;
before(async () => {
  running = await startTestServer();
  store = await createSqliteStore({ path: ':memory:' });
  larder = await createApp({
    store,
    clock: createTestClock(Date.UTC(2025, 4, 1)),
    logger: silentLogger,
    config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false, adminToken: ADMIN },
  });
});
after(async () => {
  await running.stop();
  await store.close();
});

const refusal = async (response: Response) => {
  assert.equal(response.status, 400);
  return (await response.json()) as { code: number; message: string };
};

test('a login body that is not UTF-8 is a 400 naming the byte', async () => {
  const body = await refusal(
    await fetch(`${running.server.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: latin1(
        '{"clientId": "caf\xe9", "clientSecret": "x", "userAccessType": "PLATFORM_MACHINE_CLIENT"}',
      ),
    }),
  );
  assert.equal(body.code, 40002);
  assert.equal(body.message, 'The request body is not UTF-8 (byte 0xe9 at offset 17): send it as UTF-8.');
});

test('a fixture upload that is not UTF-8 is a 400, and nothing is stored', async () => {
  const upload = (bytes: Buffer) =>
    larder.app.request('/_larder/locations/utf8-1/purchaseOrders', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: bytes,
    });
  const bad = await refusal(await upload(latin1('[{"id": "\xff"}]')));
  assert.match(bad.message, /not UTF-8 \(byte 0xff at offset 9\)/);
  const cut = await refusal(await upload(latin1('[{"id": "\xe2\x82')));
  assert.match(cut.message, /ends in the middle of a UTF-8 character/);
  assert.equal(await store.locations.get('utf8-1'), undefined);
});
