import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkStore } from '../../src/check/check-location.js';
import { prepareDemo } from '../../src/sandbox/demo.js';
import { type AppConfig, createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock, type TestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const ADMIN = 'sandbox-data-admin-token';
const T = Date.UTC(2025, 4, 1, 12);

const appOn = (store: Store, clock: TestClock, config: Partial<AppConfig> = {}) =>
  createApp({
    store,
    clock,
    logger: silentLogger,
    config: {
      publicUrl: 'http://larder.test',
      tokenTtlSeconds: 86_400,
      trustProxy: false,
      adminToken: ADMIN,
      ...config,
    },
  });

const client = (larder: LarderApp) => {
  const admin = (method: string, path: string, body?: string, type = 'application/json') =>
    larder.app.request(`/_larder${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': type }) },
      ...(body === undefined ? {} : { body }),
    });
  const json = async <T = Record<string, unknown>>(response: Response | Promise<Response>) =>
    (await (await response).json()) as T;
  const retail = async (clientId: string, clientSecret: string) => {
    const login = await json<{ token: { accessToken: string } }>(
      larder.app.request('/authentication/v1/authentication/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
      }),
    );
    const token = login.token.accessToken;
    return (location: string, kind: string, body: unknown = {}, query = '') =>
      larder.app.request(`/v1/${kind}/search${query}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': location,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
  };
  return { admin, json, retail };
};

for (const backend of await backends()) {
  describeBackend(`sandbox fixtures over HTTP (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let larder: LarderApp;
    let api: ReturnType<typeof client>;
    before(async () => {
      db = await backend.create();
      larder = await appOn(db.store, createTestClock(T));
      api = client(larder);
    });
    after(() => db.destroy());

    const orders = [1, 2, 3].map((n) => purchaseOrderFixture(n, { modifiedAt: T - n * 60_000 }));

    test('a JSON array of purchase orders and NDJSON inventory load into a new location', async () => {
      const loaded = await api.admin('POST', '/locations/fixture-1/purchaseOrders', JSON.stringify(orders));
      assert.equal(loaded.status, 200);
      assert.deepEqual(await loaded.json(), { imported: 3 });
      const ndjson = [1, 2].map((n) => JSON.stringify(inventoryFixture(n, { modifiedAt: T }))).join('\n');
      const entries = await api.admin(
        'POST',
        '/locations/fixture-1/inventoryHistory',
        ndjson,
        'application/x-ndjson',
      );
      assert.deepEqual(await entries.json(), { imported: 2 });
      const created = await api.json<{ clientId: string; clientSecret: string }>(
        api.admin('POST', '/clients', JSON.stringify({ name: 'fixture reader', locations: ['fixture-1'] })),
      );
      const search = await api.retail(created.clientId, created.clientSecret);
      const page = await api.json<{ data: unknown[] }>(search('fixture-1', 'purchaseOrders'));
      assert.equal(page.data.length, 3);
    });

    test('a bad record is a 400 naming its index and field, and nothing is stored', async () => {
      const bad = [orders[0], { ...orders[1], status: 'LOST' }, { ...orders[2], id: 'nope' }];
      const response = await api.admin('POST', '/locations/fixture-2/purchaseOrders', JSON.stringify(bad));
      assert.equal(response.status, 400);
      const body = await api.json<{ code: number; errors: { fieldName: string }[] }>(response);
      assert.equal(body.code, 40001);
      assert.deepEqual(
        body.errors.map((e) => e.fieldName),
        ['[1].status', '[2].id'],
      );
      assert.equal(await db.store.locations.get('fixture-2'), undefined, 'all or nothing');
    });

    test('records of the other kind are that one problem, naming the path to send them to', async () => {
      const response = await api.admin(
        'POST',
        '/locations/fixture-7/inventoryHistory',
        JSON.stringify(orders),
      );
      assert.equal(response.status, 400);
      const [hint, ...rest] = (await api.json<{ errors: { fieldName: string; message: string }[] }>(response))
        .errors;
      assert.deepEqual(hint && { fieldName: hint.fieldName, message: hint.message }, {
        fieldName: '(body)',
        message:
          '(body) looks like purchase orders, not inventory entries: send it to POST /_larder/locations/fixture-7/purchaseOrders.',
      });
      assert.deepEqual(rest, [], 'no problem of their fields');
      assert.equal(await db.store.locations.get('fixture-7'), undefined);
    });

    test('a date-time Date.parse cannot read is a 400 naming the field, not a 500 from the database', async () => {
      const bad = [
        { ...orders[0], modifiedDate: '2025-01-01T23:59:60Z' },
        { ...orders[1], modifiedDate: '2025-01-01T12:00:00+05' },
        { ...orders[2], createdDate: '2025-01-01 12:00:00Z' },
      ];
      const response = await api.admin('POST', '/locations/fixture-6/purchaseOrders', JSON.stringify(bad));
      assert.equal(response.status, 400);
      const body = await api.json<{ errors: { fieldName: string }[] }>(response);
      assert.deepEqual(
        body.errors.map((e) => e.fieldName),
        ['[0].modifiedDate', '[1].modifiedDate', '[2].createdDate'],
      );
      assert.equal(await db.store.locations.get('fixture-6'), undefined);
    });

    test('a body that is not records is a 400 that speaks of the body, not of a file', async () => {
      const problemsOf = async (body: string) =>
        (
          await api.json<{ errors: { fieldName: string; message: string }[] }>(
            api.admin('POST', '/locations/fixture-4/purchaseOrders', body),
          )
        ).errors;
      // The records before the cut are judged too (a valid one here), so the body's own problem is the only one.
      const [cut, ...more] = await problemsOf(`[${JSON.stringify(orders[0])},`);
      assert.deepEqual(more, []);
      assert.equal(cut?.fieldName, '(body)');
      assert.equal(cut?.message, '(body) the body ends before the closing ] (line 1).');
      const [unclosed] = await problemsOf('{"id":');
      assert.equal(unclosed?.message, '(body) the body ends inside a record (line 1).');
      // A saved search page: one message saying to send its data, not a problem per envelope field.
      const page = JSON.stringify({
        currentPageToken: '',
        nextPageToken: '',
        data: [purchaseOrderFixture(1, { modifiedAt: T })],
      });
      const answer = await api.json(api.admin('POST', '/locations/fixture-4/purchaseOrders', page));
      assert.equal(answer['fieldName'], 'data');
      assert.match(String(answer['message']), /search page, not records: send its data array/);
      assert.equal(await db.store.locations.get('fixture-4'), undefined);
    });

    test('a record nested thousands deep is a 400 naming its field, not a stack overflow', async () => {
      const deep = `{"a":${'['.repeat(8000)}${']'.repeat(8000)}}`;
      for (const [body, type] of [
        [`[${deep}]`, 'application/json'],
        [deep, 'application/x-ndjson'],
      ] as const) {
        const response = await api.admin('POST', '/locations/fixture-5/inventoryHistory', body, type);
        assert.equal(response.status, 400, type);
        const answer = await api.json<{ errors: { fieldName: string }[] }>(response);
        assert.ok(answer.errors.length > 0, type);
      }
      assert.equal(await db.store.locations.get('fixture-5'), undefined);
    });

    test('an empty array makes an empty location, as documented', async () => {
      const response = await api.admin('POST', '/locations/fixture-empty/purchaseOrders', '[]');
      assert.deepEqual(await api.json(response), { imported: 0 });
      assert.notEqual(await db.store.locations.get('fixture-empty'), undefined);
    });

    test('bad uploads: wrong content type 415, empty body 400, bad location id 400', async () => {
      assert.equal((await api.admin('POST', '/locations/x/purchaseOrders', '[]', 'text/plain')).status, 415);
      assert.equal((await api.admin('POST', '/locations/x/purchaseOrders', '')).status, 400);
      const badId = await api.admin('POST', '/locations/a%20b/purchaseOrders', '[]');
      assert.equal(badId.status, 400);
      assert.equal((await api.json(badId))['fieldName'], 'locationId');
    });

    test('a location id is 1 to 200 visible ASCII characters, as larder import and the retail header take it', async () => {
      // Any id the CLI imports can be loaded, charted and deleted here too; percent-encoded in the path.
      const longest = `Store#12/a%b?c:${'x'.repeat(185)}`;
      assert.equal(longest.length, 200);
      const path = `/locations/${encodeURIComponent(longest)}`;
      const loaded = await api.admin('POST', `${path}/purchaseOrders`, JSON.stringify(orders));
      assert.deepEqual(await api.json(loaded), { imported: 3 });
      assert.notEqual(await db.store.locations.get(longest), undefined);
      assert.equal((await api.admin('DELETE', path)).status, 200);
      assert.equal(await db.store.locations.get(longest), undefined);
      for (const id of [`${longest}y`, 'a b', 'café', 'tab\there']) {
        const refused = await api.admin('POST', `/locations/${encodeURIComponent(id)}/purchaseOrders`, '[]');
        assert.equal(refused.status, 400, id);
        const body = await api.json(refused);
        assert.equal(body['fieldName'], 'locationId');
        assert.match(String(body['message']), /1 to 200 visible ASCII characters/);
      }
    });

    test('an id of . or .. spelt %2E or %2E%2E is resolved by URL parsing first: 404 or 405, never an id', async () => {
      // As the README says: /locations/%2E/purchaseOrders is /locations/purchaseOrders (a DELETE path), and
      // /locations/%2E%2E/purchaseOrders is /purchaseOrders, before any route reads a locationId.
      for (const [method, path, status] of [
        ['POST', '/locations/%2E/purchaseOrders', 405],
        ['POST', '/locations/%2e%2E/purchaseOrders', 404],
        ['GET', '/locations/%2E%2E/charts', 404],
        ['DELETE', '/locations/%2E', 404],
        ['DELETE', '/locations/%2E%2E', 404],
      ] as const) {
        const response = await api.admin(method, path, method === 'POST' ? '[]' : undefined);
        assert.equal(response.status, status, `${method} ${path}`);
        assert.notEqual((await api.json(response))['fieldName'], 'locationId', `${method} ${path}`);
      }
      assert.equal(await db.store.locations.get('.'), undefined);
      assert.equal(await db.store.locations.get('..'), undefined);
    });

    test('DELETE a location removes it and its records; then it is unknown', async () => {
      await api.admin('POST', '/locations/fixture-3/purchaseOrders', JSON.stringify(orders));
      const created = await api.json<{ clientId: string; clientSecret: string }>(
        api.admin('POST', '/clients', JSON.stringify({ name: 'r', locations: ['fixture-3'] })),
      );
      const search = await api.retail(created.clientId, created.clientSecret);
      assert.equal((await search('fixture-3', 'purchaseOrders')).status, 200);
      assert.deepEqual(await api.json(api.admin('DELETE', '/locations/fixture-3')), { deleted: 'fixture-3' });
      const gone = await search('fixture-3', 'purchaseOrders');
      assert.equal(gone.status, 404);
      assert.equal((await api.json(gone))['code'], 40403);
      assert.equal((await api.admin('DELETE', '/locations/fixture-3')).status, 404);
    });

    test('reset answers 409 on a database that was not started as a demo', async () => {
      const response = await api.admin('POST', '/reset');
      assert.equal(response.status, 409);
      assert.match(String((await api.json(response))['message']), /demo database/);
    });
  });
}

describe('a live demo database', () => {
  let dir: string;
  let store: Store;
  let clock: TestClock;
  let larder: LarderApp;
  let api: ReturnType<typeof client>;
  const firstDay = '2025-04-30';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-live-'));
    store = await openStore({ db: join(dir, 'demo.db') });
    clock = createTestClock(T);
    await prepareDemo(store, clock, () => {});
    larder = await appOn(store, clock);
    api = client(larder);
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const demoSearch = async () => {
    const demo = (await store.settings.demoClient.get())!;
    return api.retail(demo.clientId, demo.clientSecret);
  };

  /** A login of the demo client, with this secret. */
  const demoLogin = async (app: LarderApp, clientSecret: string) =>
    app.app.request('/authentication/v1/authentication/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: (await store.settings.demoClient.get())!.clientId,
        clientSecret,
        userAccessType: 'PLATFORM_MACHINE_CLIENT',
      }),
    });

  /** Every record of a search, walking its pages. */
  const walk = async (location: string, kind: string, body: unknown) => {
    const search = await demoSearch();
    const records: { modifiedDate: string }[] = [];
    for (let token = ''; ; ) {
      const page = await api.json<{ data: { modifiedDate: string }[]; nextPageToken: string }>(
        search(location, kind, body, `?pageSize=500${token === '' ? '' : `&pageToken=${token}`}`),
      );
      records.push(...page.data);
      if (page.nextPageToken === '') return records;
      token = page.nextPageToken;
    }
  };

  test('demo data ends the day before the clock, and its state is kept', async () => {
    const state = await store.settings.liveDemo.get();
    assert.equal(state?.endDate, firstDay);
    assert.equal(state?.locations.length, 3);
    assert.equal((await store.settings.demoAdminToken.get())?.length, 32);
  });

  test('advancing the clock 2 days brings 2 days of activity, dated after the last sync, and check still passes', async () => {
    const [location] = (await store.settings.liveDemo.get())!.locations;
    const before = await walk(location!.id, 'inventoryHistory', {
      updatedDateRange: { startDate: firstDay },
    });
    await api.admin('POST', '/clock/advance', JSON.stringify({ seconds: 2 * 86_400 }));
    assert.equal((await store.settings.liveDemo.get())?.endDate, '2025-05-02');
    const changed = await walk(location!.id, 'purchaseOrders', {
      updatedDateRange: { startDate: '2025-05-01' },
      includeArchived: true,
    });
    assert.ok(changed.length > 0, 'orders were placed or moved on');
    assert.ok(changed.every((order) => order.modifiedDate >= '2025-05-01'));
    const after = await walk(location!.id, 'inventoryHistory', { updatedDateRange: { startDate: firstDay } });
    assert.ok(after.length > before.length, 'new inventory activity');
    for (const report of await checkStore(store)) assert.deepEqual(report.findings, [], report.locationId);
  });

  test('a long move of the clock is caught up a day at a time, and one too far is refused', async () => {
    let settled = false;
    const moving = Promise.resolve(
      api.admin('POST', '/clock/advance', JSON.stringify({ seconds: 20 * 86_400 })),
    ).then((response) => {
      settled = true;
      return response;
    });
    // A timer fires before the catch-up ends: it yields to the event loop between days.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(settled, false);
    assert.equal((await moving).status, 200);
    const far = await api.admin('PUT', '/clock', JSON.stringify({ now: '9999-12-31T00:00:00Z' }));
    assert.equal(far.status, 400);
    const refusal = await api.json(far);
    assert.equal(refusal['fieldName'], 'now');
    assert.match(String(refusal['message']), /at most 10 years/);
  });

  test('an imported location is never touched by the live demo', async () => {
    const fixture = [purchaseOrderFixture(1, { modifiedAt: T })];
    await api.admin('POST', '/locations/mine/purchaseOrders', JSON.stringify(fixture));
    await api.admin('POST', '/clock/advance', JSON.stringify({ seconds: 86_400 }));
    const listed = await store.locations.list();
    assert.equal(listed.find((l) => l.id === 'mine')?.purchaseOrders, 1);
  });

  test('a location imported later is never readable with the printed demo secret', async () => {
    await api.admin(
      'POST',
      '/locations/later/purchaseOrders',
      JSON.stringify([purchaseOrderFixture(2, { modifiedAt: T })]),
    );
    assert.equal((await store.locations.list()).find((l) => l.id === 'later')?.purchaseOrders, 1);
    const response = await (await demoSearch())('later', 'purchaseOrders');
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { code: number }).code, 40302);
  });

  test('reset brings the first-start data, only the demo client, real time, an empty journal, no fault rules and no failed logins', async () => {
    const [first] = (await store.settings.liveDemo.get())!.locations;
    const demo = (await store.settings.demoClient.get())!;
    const login = (clientSecret: string) => demoLogin(larder, clientSecret);
    // A test of wrong secrets leaves the demo client throttled...
    for (let i = 0; i < 10; i++) assert.equal((await login('wrong')).status, 401);
    assert.equal((await login(demo.clientSecret)).status, 429);
    await api.admin('POST', '/clients', JSON.stringify({ name: 'extra', allLocations: true }));
    const rule = { id: 'left-over', effect: { type: 'status', status: 503 } };
    assert.equal((await api.admin('POST', '/faults', JSON.stringify(rule))).status, 201);
    const reset = await api.admin('POST', '/reset');
    assert.equal(reset.status, 200);
    const state = (await store.settings.liveDemo.get())!;
    // Real time is the test clock's: the live demo catches up to its last complete day.
    assert.equal(state.endDate, firstDay);
    assert.equal((await store.auth.listClients()).length, 1);
    assert.equal(await store.locations.get('mine'), undefined);
    assert.ok(await store.locations.get(first!.id));
    const view = await api.json(api.admin('GET', '/clock'));
    assert.equal(view['offsetSeconds'], 0);
    const { next: _next, ...requests } = await api.json(api.admin('GET', '/requests'));
    assert.deepEqual(requests, { requests: [], dropped: 0 });
    assert.deepEqual((await api.json<{ rules: unknown[] }>(api.admin('GET', '/faults'))).rules, []);
    // ...and the next test, after a reset, logs in at once.
    assert.equal((await login(demo.clientSecret)).status, 200);
    assert.equal((await (await demoSearch())(first!.id, 'purchaseOrders')).status, 200);
  });

  test('reset starts every rate-limit count again: a spent budget does not refuse the next test', async () => {
    const limited = await appOn(store, clock, { rateLimit: [{ limit: 2, windowMs: 900_000 }] });
    const demo = (await store.settings.demoClient.get())!;
    const login = () => demoLogin(limited, demo.clientSecret);
    assert.deepEqual(
      [(await login()).status, (await login()).status, (await login()).status],
      [200, 200, 429],
    );
    const reset = await client(limited).admin('POST', '/reset');
    assert.equal(reset.status, 200);
    assert.equal((await login()).status, 200);
  });
});
