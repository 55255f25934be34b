import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/server/app.js';
import { systemClock } from '../../src/shared/clock.js';
import { StoreError } from '../../src/shared/errors.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { createRetailHarness, loadRecords, stubGuard } from '../helpers/retail-app.js';

/** Input validation and the error edge are backend-independent: SQLite only. */

type Body = Record<string, unknown>;

let dir: string;
let store: Store;
let h: Awaited<ReturnType<typeof createRetailHarness>>;

const T = Date.parse('2024-06-01T00:00:00Z');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-errors-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
  await loadRecords(store, 'loc-a', {
    purchaseOrders: Array.from({ length: 5 }, (_, i) => purchaseOrderFixture(i, { modifiedAt: T + i })),
  });
  await loadRecords(store, 'loc-b', { purchaseOrders: [purchaseOrderFixture(9, { modifiedAt: T })] });
  h = await createRetailHarness(store, ['loc-a', 'loc-b']);
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const expectError = async (response: Response, status: number, code: number, fieldName?: string) => {
  assert.equal(response.status, status);
  const body = (await response.json()) as Body;
  assert.equal(body['status'], String(status));
  assert.equal(body['code'], code);
  assert.equal(typeof body['message'], 'string');
  assert.equal(body['requestId'], response.headers.get('x-request-id'));
  assert.equal(body['canRetry'], status === 429 || status >= 500 ? 'true' : 'false');
  if (fieldName !== undefined) assert.equal(body['fieldName'], fieldName);
  return body;
};

const searchRaw = (rawBody: string | undefined, headers: Record<string, string> = {}, query = '') =>
  h.call('POST', `/v1/purchaseOrders/search${query}`, {
    location: 'loc-a',
    ...(rawBody === undefined ? {} : { rawBody }),
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('location header and guard', () => {
  test('a missing Platform-Restaurant-External-ID header answers 400 naming the header', async () => {
    await expectError(
      await h.call('POST', '/v1/purchaseOrders/search', { body: {} }),
      400,
      40003,
      'Platform-Restaurant-External-ID',
    );
  });

  test('an empty location header answers 400', async () => {
    await expectError(
      await h.call('GET', `/v1/purchaseOrders/${purchaseOrderFixture(1, { modifiedAt: T }).id}`, {
        location: '  ',
      }),
      400,
      40003,
    );
  });

  test('without a token the answer is 401 even when the header is missing too', async () => {
    await expectError(
      await h.call('POST', '/v1/inventoryHistory/search', { body: {}, authorization: null }),
      401,
      40101,
    );
  });

  test('a location the guard refuses answers 403', async () => {
    await expectError(await h.search('purchaseOrders', 'loc-zzz', {}), 403, 40302);
  });
});

describe('search body', () => {
  test('a missing body answers 400, telling how to search without filters', async () => {
    const body = await expectError(await searchRaw(undefined), 400, 40002);
    assert.equal(body['message'], 'A JSON object body is required; send {} to search without filters.');
  });

  test('malformed JSON answers 400 with the parser detail', async () => {
    const body = await expectError(await searchRaw('{"includeArchived": tru'), 400, 40002);
    assert.equal(typeof body['developerMessage'], 'string');
  });

  for (const raw of ['[]', 'null', '42', '"x"']) {
    test(`a JSON ${raw} body (not an object) answers 400`, async () => {
      await expectError(await searchRaw(raw), 400, 40002);
    });
  }

  test('a non-JSON content type answers 415', async () => {
    await expectError(
      await searchRaw('includeArchived=true', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      41501,
    );
  });

  test('a compressed body answers 415 naming the coding, with Accept-Encoding: identity; identity is the body as sent', async () => {
    const response = await searchRaw('{}', { 'content-encoding': 'gzip' });
    assert.equal(response.headers.get('accept-encoding'), 'identity');
    const body = await expectError(response, 415, 41501);
    assert.match(
      String(body['message']),
      /^Content-Encoding gzip is not supported: send the body uncompressed/,
    );
    assert.equal((await searchRaw('{}', { 'content-encoding': 'identity' })).status, 200);
  });

  test('application/json with a charset is accepted', async () => {
    const response = await searchRaw('{}', { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(response.status, 200);
  });

  test('a body over 64 KiB answers 413', async () => {
    await expectError(await searchRaw(`{"x":"${'a'.repeat(70_000)}"}`), 413, 41301);
  });

  test('an unknown field answers 400 naming it, and the field it most likely meant', async () => {
    const body = await expectError(
      await h.search('purchaseOrders', 'loc-a', { includeArchive: true }),
      400,
      40001,
      'includeArchive',
    );
    assert.equal(body['message'], 'includeArchive is not a known field (did you mean includeArchived?).');
    const nested = await expectError(
      await h.search('inventoryHistory', 'loc-a', { updatedDateRange: { start: '2025-01-01' } }),
      400,
      40001,
    );
    const errors = nested['errors'] as { fieldName: string; message: string }[];
    assert.equal(
      errors.find((error) => error.fieldName === 'updatedDateRange.start')?.message,
      'updatedDateRange.start is not a known field (did you mean startDate?).',
    );
    const typo = await expectError(
      await h.search('purchaseOrders', 'loc-a', { purchaseOrderStatus: ['ORDERED'] }),
      400,
      40001,
      'purchaseOrderStatus',
    );
    assert.match(String(typo['message']), /did you mean purchaseOrderStatuses\?/);
    // Nothing near: no guess.
    const far = await expectError(await h.search('purchaseOrders', 'loc-a', { zzz: 1 }), 400, 40001, 'zzz');
    assert.equal(far['message'], 'zzz is not a known field.');
  });

  test('an unknown status answers 400 naming field and index', async () => {
    const body = await expectError(
      await h.search('purchaseOrders', 'loc-a', { purchaseOrderStatuses: ['ORDERED', 'SHIPPED'] }),
      400,
      40001,
      'purchaseOrderStatuses[1]',
    );
    assert.match(String(body['message']), /DRAFT/);
  });

  test('an unknown adjustment type answers 400 naming field and index', async () => {
    await expectError(
      await h.search('inventoryHistory', 'loc-a', { adjustmentType: ['BROKEN'] }),
      400,
      40001,
      'adjustmentType[0]',
    );
  });

  test('more than 50 filter entries answer 400', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', {
        purchaseOrderStatuses: Array.from({ length: 51 }, () => 'DRAFT'),
      }),
      400,
      40001,
      'purchaseOrderStatuses',
    );
  });

  test('a wrong type answers 400 naming the field', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', { includeArchived: 'yes' }),
      400,
      40001,
      'includeArchived',
    );
  });

  test('an impossible calendar date answers 400 naming the field', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', { updatedDateRange: { startDate: '2023-02-29' } }),
      400,
      40001,
      'updatedDateRange.startDate',
    );
  });

  test('a date-time where a date belongs answers 400', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', { updatedDateRange: { startDate: '2024-01-01T00:00:00Z' } }),
      400,
      40001,
      'updatedDateRange.startDate',
    );
  });

  test('updatedDateRange without startDate answers 400', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', { updatedDateRange: { endDate: '2024-01-01' } }),
      400,
      40001,
      'updatedDateRange.startDate',
    );
  });

  test('endDate before startDate answers 400', async () => {
    await expectError(
      await h.search('purchaseOrders', 'loc-a', {
        updatedDateRange: { startDate: '2024-02-02', endDate: '2024-02-01' },
      }),
      400,
      40007,
      'updatedDateRange.endDate',
    );
  });

  test('several bad fields are reported as nested errors', async () => {
    const body = await expectError(
      await h.search('purchaseOrders', 'loc-a', {
        includeArchived: 1,
        purchaseOrderStatuses: ['NOPE'],
        extra: true,
      }),
      400,
      40001,
    );
    const nested = body['errors'] as Body[];
    assert.deepEqual(nested.map((error) => error['fieldName']).sort(), [
      'extra',
      'includeArchived',
      'purchaseOrderStatuses[0]',
    ]);
  });

  test('deeply nested JSON is a 400, not a crash', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    await expectError(await searchRaw(`{"updatedDateRange":${deep}}`), 400, 40001, 'updatedDateRange');
  });
});

describe('paging parameters', () => {
  const firstPage = async (query = '?pageSize=2', body: unknown = {}) =>
    (await (
      await h.call('POST', `/v1/purchaseOrders/search${query}`, { location: 'loc-a', body })
    ).json()) as Body;

  for (const size of ['0', '501', 'abc', '1.5', '-1', '']) {
    test(`pageSize=${size} answers 400 naming pageSize`, async () => {
      await expectError(await searchRaw('{}', {}, `?pageSize=${size}`), 400, 40006, 'pageSize');
    });
  }

  test('pageSize or pageToken given twice answers 400 naming it, whichever value comes first', async () => {
    const token = String((await firstPage())['nextPageToken']);
    for (const query of [
      '?pageSize=2&pageSize=500',
      '?pageSize=500&pageSize=2',
      `?pageToken=${token}&pageToken=${token}`,
    ]) {
      const body = await expectError(
        await searchRaw('{}', {}, query),
        400,
        40006,
        query.slice(1, 9) === 'pageSize' ? 'pageSize' : 'pageToken',
      );
      assert.match(String(body['message']), /given 2 times; it takes one value/);
    }
  });

  test('pageSize=500 is accepted', async () => {
    assert.equal((await searchRaw('{}', {}, '?pageSize=500')).status, 200);
  });

  test('a garbage pageToken answers 400', async () => {
    await expectError(await searchRaw('{}', {}, '?pageToken=garbage'), 400, 40005, 'pageToken');
  });

  test('a tampered pageToken answers 400', async () => {
    const token = String((await firstPage())['nextPageToken']);
    const tampered = `${token.slice(0, 2)}${token[2] === 'A' ? 'B' : 'A'}${token.slice(3)}`;
    await expectError(await searchRaw('{}', {}, `?pageSize=2&pageToken=${tampered}`), 400, 40005);
  });

  test('a pageToken used with another filter answers 400', async () => {
    const token = String((await firstPage())['nextPageToken']);
    await expectError(
      await searchRaw('{"includeArchived":true}', {}, `?pageSize=2&pageToken=${token}`),
      400,
      40005,
    );
  });

  test('a pageToken used with another page size answers 400, saying what must stay the same', async () => {
    const token = String((await firstPage())['nextPageToken']);
    const body = await expectError(await searchRaw('{}', {}, `?pageSize=3&pageToken=${token}`), 400, 40005);
    assert.match(String(body['message']), /the same location, body and pageSize/);
  });

  test('pageToken or pageSize sent in the body is told they go in the query string', async () => {
    for (const name of ['pageToken', 'pageSize']) {
      const body = await expectError(await searchRaw(`{"${name}":"x"}`), 400, 40001, name);
      assert.match(String(body['message']), /goes in the query string/);
    }
  });

  test('a pageToken used at another location answers 400', async () => {
    const token = String((await firstPage())['nextPageToken']);
    const response = await h.call('POST', `/v1/purchaseOrders/search?pageSize=2&pageToken=${token}`, {
      location: 'loc-b',
      body: {},
    });
    await expectError(response, 400, 40005);
  });

  test('a purchase-order pageToken is refused by the inventory search', async () => {
    const token = String((await firstPage())['nextPageToken']);
    const response = await h.call('POST', `/v1/inventoryHistory/search?pageSize=2&pageToken=${token}`, {
      location: 'loc-a',
      body: {},
    });
    await expectError(response, 400, 40005);
  });

  test('a huge pageToken answers 400', async () => {
    await expectError(await searchRaw('{}', {}, `?pageToken=${'A'.repeat(100_000)}`), 400, 40005);
  });

  test('a page token keeps working on a second app instance sharing the store', async () => {
    const token = String((await firstPage())['nextPageToken']);
    const other = await createApp({
      store,
      clock: systemClock,
      logger: silentLogger,
      config: { publicUrl: 'http://other', tokenTtlSeconds: 3600, trustProxy: false },
      guard: stubGuard(['loc-a']),
    });
    const response = await other.app.request(`/v1/purchaseOrders/search?pageSize=2&pageToken=${token}`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer retail-test',
        'platform-restaurant-external-id': 'loc-a',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    assert.equal(response.status, 200);
  });
});

describe('request ids, routes and methods', () => {
  test('a sane incoming X-Request-Id is kept', async () => {
    const response = await h.call('POST', '/v1/purchaseOrders/search', {
      location: 'loc-a',
      body: {},
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(response.headers.get('x-request-id'), 'trace-123');
  });

  test('an unsafe incoming X-Request-Id is replaced', async () => {
    const response = await h.call('GET', '/v1/purchaseOrders/nope', {
      location: 'loc-a',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    const body = (await response.json()) as Body;
    assert.notEqual(body['requestId'], 'bad id with spaces');
    assert.match(String(body['requestId']), /^[0-9a-f-]{36}$/);
  });

  test('an unknown route answers a 404 ErrorMessage, naming the endpoint it most likely meant', async () => {
    const nothing = await expectError(await h.call('GET', '/v2/nothing'), 404, 40402);
    assert.equal(nothing['message'], 'No such endpoint.');
    const typo = await expectError(
      await h.call('POST', '/v1/purchaseOrder/search', { location: 'loc-a' }),
      404,
      40402,
    );
    assert.equal(typo['message'], 'No such endpoint. Did you mean POST /v1/purchaseOrders/search?');
    const login = await expectError(
      await h.call('POST', '/authentication/v1/authentication/Login'),
      404,
      40402,
    );
    assert.match(String(login['message']), /Did you mean POST \/authentication\/v1\/authentication\/login\?/);
    // Without the admin API its paths are never suggested: /_larder/ answers as if it did not exist.
    const admin = await expectError(await h.call('GET', '/_larder/clok'), 404, 40402);
    assert.equal(admin['message'], 'No such endpoint.');
  });

  test('GET on a search path answers 405 with Allow: POST', async () => {
    const response = await h.call('GET', '/v1/purchaseOrders/search', { location: 'loc-a' });
    assert.equal(response.headers.get('allow'), 'POST');
    const body = await expectError(response, 405, 40501);
    assert.match(String(body['message']), /takes POST only/);
  });

  test('the login and token endpoints asked with another method answer 405 with Allow: POST', async () => {
    const login = '/authentication/v1/authentication/login';
    const token = '/authentication/v1/authentication/customer/oauth/token';
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await h.call(method, login);
      assert.equal(response.headers.get('allow'), 'POST', `${method} ${login}`);
      const body = await expectError(response, 405, 40501);
      assert.equal(body['message'], `${login} takes POST, not ${method}.`);
      // The token endpoint answers every error as RFC 6749 does, a wrong method included.
      const oauth = await h.call(method, token);
      assert.equal(oauth.status, 405);
      assert.equal(oauth.headers.get('allow'), 'POST', `${method} ${token}`);
      assert.deepEqual(await oauth.json(), {
        error: 'invalid_request',
        error_description: `${token} takes POST, not ${method}`,
        requestId: oauth.headers.get('x-request-id'),
      });
    }
    const health = await h.call('POST', '/healthz');
    assert.equal(health.headers.get('allow'), 'GET, HEAD');
    await expectError(health, 405, 40501);
  });

  test('a POST to a near miss of search is told the search path, not "use GET"', async () => {
    for (const path of ['/v1/purchaseOrders/seach', '/v1/inventoryHistory/Search']) {
      const body = await expectError(await h.call('POST', path, { location: 'loc-a', body: {} }), 404, 40402);
      assert.equal(
        body['message'],
        `No such endpoint. Did you mean POST ${path.replace(/[^/]+$/, 'search')}?`,
      );
    }
    const record = await h.call(
      'POST',
      `/v1/purchaseOrders/${purchaseOrderFixture(1, { modifiedAt: T }).id}`,
      {
        location: 'loc-a',
        body: {},
      },
    );
    assert.equal(record.headers.get('allow'), 'GET, HEAD');
    assert.match(String((await expectError(record, 405, 40501))['message']), /one record: it takes GET/);
  });

  test('DELETE on a record answers 405', async () => {
    await expectError(
      await h.call('DELETE', `/v1/inventoryHistory/${purchaseOrderFixture(1, { modifiedAt: T }).id}`, {
        location: 'loc-a',
      }),
      405,
      40501,
    );
  });

  /** A GET by id through an app whose store fails every record read with `error`. */
  const getThroughFailingStore = async (error: Error) => {
    const failing: Store = {
      ...store,
      records: {
        ...store.records,
        get: async () => {
          throw error;
        },
      },
    };
    const { app } = await createApp({
      store: failing,
      clock: systemClock,
      logger: silentLogger,
      config: { publicUrl: 'http://x', tokenTtlSeconds: 3600, trustProxy: false },
      guard: stubGuard(['loc-a']),
    });
    return app.request(`/v1/purchaseOrders/${purchaseOrderFixture(1, { modifiedAt: T }).id}`, {
      headers: { authorization: 'Bearer retail-test', 'platform-restaurant-external-id': 'loc-a' },
    });
  };

  test('an unavailable or locked store answers 503 ERR_UNAVAILABLE', async () => {
    for (const code of ['STORE_UNAVAILABLE', 'STORE_LOCKED'] as const) {
      const response = await getThroughFailingStore(new StoreError(code, 'The database is away.'));
      await expectError(response, 503, 50301);
    }
  });

  test('a failing store answers a 500 ErrorMessage without a stack trace', async () => {
    const response = await getThroughFailingStore(new Error('disk on fire at /secret/path'));
    const text = await response.clone().text();
    await expectError(response, 500, 50001);
    assert.doesNotMatch(text, /disk on fire|secret|at .*\.ts/);
  });
});

test('OPTIONS on a search path answers 405 with Allow: POST', async () => {
  const response = await h.call('OPTIONS', '/v1/inventoryHistory/search', { location: 'loc-a' });
  await expectError(response, 405, 40501);
  assert.equal(response.headers.get('allow'), 'POST');
});
