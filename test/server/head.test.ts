import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { loadRecords } from '../helpers/retail-app.js';
import { logInOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/** HEAD on a record, over a real socket: the Node adapter is where a HEAD answer lost its Content-Length. */

const ADMIN = 'admin-token-for-head-tests';
const order = purchaseOrderFixture(1, { modifiedAt: Date.parse('2024-06-01T00:00:00Z') });
let running: TestServer;
let headers: Record<string, string>;

before(async () => {
  running = await startTestServer({ config: { adminToken: ADMIN } });
  await loadRecords(running.store, 'loc-a', { purchaseOrders: [order] });
  const client = await createClientCredentials(running.store, { name: 'head', allLocations: true });
  const token = await logInOver(running.server.url, client.clientId, client.clientSecret);
  headers = { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': 'loc-a' };
});
after(() => running.stop());

const both = async (path: string, given: Record<string, string> = headers) => {
  const get = await fetch(`${running.server.url}${path}`, { headers: given });
  const body = await get.arrayBuffer();
  const head = await fetch(`${running.server.url}${path}`, { method: 'HEAD', headers: given });
  return { get, head, length: body.byteLength };
};

test('HEAD on a record answers what GET would, Content-Length included, and no body', async () => {
  const missing = '00000000-0000-4000-8000-000000000000';
  for (const [path, given, status] of [
    [`/v1/purchaseOrders/${order.id}`, headers, 200],
    [`/v1/purchaseOrders/${missing}`, headers, 404],
    [`/v1/purchaseOrders/${order.id}`, {}, 401],
  ] as const) {
    const { get, head, length } = await both(path, given);
    assert.equal(head.status, status, path);
    assert.equal(get.status, status);
    assert.equal(head.headers.get('content-length'), String(length), `${status}`);
    assert.equal(get.headers.get('content-length'), String(length));
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
    assert.equal(head.headers.get('www-authenticate'), get.headers.get('www-authenticate'));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  }
  // Every GET route answers HEAD alike.
  const { head, length } = await both('/openapi.json', {});
  assert.equal(head.headers.get('content-length'), String(length));
});

test('the document lists HEAD on a record, with the Content-Length it answers', () => {
  const document = openApiDocument('http://larder.test');
  const item = document.paths['/v1/purchaseOrders/{purchaseOrderId}']!;
  const head = item['head']!;
  assert.equal(head.operationId, 'headPurchaseOrderById');
  assert.deepEqual(Object.keys(head.responses), Object.keys(item['get']!.responses));
  for (const [status, answer] of Object.entries(head.responses)) {
    const { headers, content } = answer as { headers: Record<string, unknown>; content?: unknown };
    assert.equal(content, undefined, status);
    assert.deepEqual(headers['Content-Length'], { $ref: '#/components/headers/Content-Length' }, status);
  }
});

test('HEAD is its GET to the journal and to fault rules: the same operation id', async () => {
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${running.server.url}/_larder${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const rule = {
    match: { operation: 'getPurchaseOrderById' },
    when: { next: 1 },
    effect: { type: 'status', status: 503 },
  };
  assert.equal((await admin('PUT', '/faults', { rules: [rule] })).status, 200);
  const path = `/v1/purchaseOrders/${order.id}`;
  const head = await fetch(`${running.server.url}${path}`, { method: 'HEAD', headers });
  assert.equal(head.status, 503);
  const { requests } = (await (await admin('GET', '/requests?limit=1')).json()) as {
    requests: { method: string; operation?: string; fault?: string }[];
  };
  assert.deepEqual(
    requests.map(({ method, operation, fault }) => ({ method, operation, fault })),
    [{ method: 'HEAD', operation: 'getPurchaseOrderById', fault: 'rule-1 status=503' }],
  );
  await admin('DELETE', '/faults');
});
