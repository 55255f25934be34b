import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hono } from 'hono';
import { LOGIN, TOKEN } from '../auth/harness.js';
import { readerApp } from '../helpers/reader-app.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

/**
 * Input an attacker sends, answered alike on both backends: NUL characters (PostgreSQL cannot store them),
 * client ids of any length, and bodies with thousands of unknown fields.
 */

const ADMIN_TOKEN = 'hostile-input-admin-token';
const LOCATION = 'loc-hostile';
type Body = Record<string, unknown>;

for (const backend of await backends()) {
  describeBackend(`hostile input (${backend.name})`, backend, () => {
    let instance: BackendInstance;
    let app: Hono;
    let bearer: string;

    before(async () => {
      instance = await backend.create();
      await instance.store.locations.upsert({ id: LOCATION });
      ({ app, bearer } = await readerApp(instance.store, LOCATION, { adminToken: ADMIN_TOKEN }));
    });
    after(() => instance?.destroy());

    const json = (path: string, body: string, headers: Record<string, string> = {}) =>
      app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });

    const form = (fields: Record<string, string>) =>
      app.request(TOKEN, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });

    const expect400 = async (response: Response, fieldName?: string): Promise<Body> => {
      assert.equal(response.status, 400);
      const body = (await response.json()) as Body;
      assert.equal(body['code'], 40001);
      assert.equal(typeof body['requestId'], 'string');
      if (fieldName !== undefined) assert.equal(body['fieldName'], fieldName);
      return body;
    };

    test('a NUL in the login client id or secret is a 400 naming the field', async () => {
      const body = (clientId: string, clientSecret: string) =>
        JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' });
      await expect400(await json(LOGIN, body('a\u0000b', 'secret')), 'clientId');
      await expect400(await json(LOGIN, body('client', 'se\u0000cret')), 'clientSecret');
    });

    test('a NUL in an OAuth client_id is an invalid client, as any unknown id', async () => {
      const response = await form({
        grant_type: 'client_credentials',
        client_id: 'a\u0000b',
        client_secret: 's',
      });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as Body)['error'], 'invalid_client');
    });

    test('a NUL in an admin API field or a fixture record is a 400 naming the field, and nothing is stored', async () => {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
      await expect400(
        await json('/_larder/clients', JSON.stringify({ name: 'bad\u0000name' }), admin),
        'name',
      );
      const response = await json(
        '/_larder/locations/loc-nul/purchaseOrders',
        JSON.stringify([{ id: '00000000-0000-4000-8000-000000000001', supplierName: 'a\u0000b' }]),
        admin,
      );
      assert.equal(response.status, 400);
      assert.match(JSON.stringify(await response.json()), /NUL/);
      assert.equal(await instance.store.locations.get('loc-nul'), undefined);
    });

    test('a NUL in a search body string is a 400 naming the field', async () => {
      const response = await json('/v1/purchaseOrders/search', JSON.stringify({ pageToken: 'x\u0000y' }), {
        authorization: bearer,
        'Platform-Restaurant-External-ID': LOCATION,
      });
      await expect400(response, 'pageToken');
    });

    test('a client id over 256 characters is refused at the edge by both credential endpoints', async () => {
      const long = 'c'.repeat(60_000);
      const token = await form({ grant_type: 'client_credentials', client_id: long, client_secret: 's' });
      assert.equal(token.status, 400);
      const body = (await token.json()) as Body;
      assert.equal(body['error'], 'invalid_request');
      assert.match(String(body['error_description']), /client_id is longer than 256/);
      const basic = await app.request(TOKEN, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${long}:s`).toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      assert.equal(basic.status, 400);
      await expect400(
        await json(
          LOGIN,
          JSON.stringify({ clientId: long, clientSecret: 's', userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
        ),
        'clientId',
      );
    });

    test('thousands of unknown fields get the first 20 and a count, in a small body', async () => {
      const fields = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`f${i}`, 1]));
      for (const response of [
        await json(LOGIN, JSON.stringify({ ...fields })),
        await json('/v1/purchaseOrders/search', JSON.stringify(fields), {
          authorization: bearer,
          'Platform-Restaurant-External-ID': LOCATION,
        }),
      ]) {
        const text = await response.text();
        assert.equal(response.status, 400);
        assert.ok(text.length < 8000, `error body of ${text.length} bytes`);
        const body = JSON.parse(text) as Body;
        assert.equal((body['errors'] as unknown[]).length, 20);
        assert.match(String(body['message']), /and \d{4} more/);
      }
    });
  });
}
