import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { logInOver, startTestServer, type TestServer } from '../helpers/test-server.js';

const REQUEST_TIMEOUT_MS = 150;

/**
 * The sandbox's pipeline on a real socket: the journal records from the answer's head (LarderResponse), and fault
 * injection and the request deadline run inside the journal's layer. What each of those answers must still be
 * the answer the client gets and the entry the journal keeps.
 */
describe('sandbox pipeline: journal, faults and deadline in one layer', () => {
  let running: TestServer;
  let token: string;
  let location: string;
  const call = async (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${running.server.url}${path}`, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const admin = (path: string) =>
    call(`/_larder${path}`, { headers: { authorization: `Bearer ${running.demo?.adminToken}` } });

  before(async () => {
    running = await startTestServer({
      demo: true,
      config: { requestTimeoutMs: REQUEST_TIMEOUT_MS, allowFaultHeader: true },
    });
    const demo = running.demo!;
    token = await logInOver(running.server.url, demo.clientId, demo.clientSecret);
    location = (await running.store.locations.list())[0]!.id;
  });
  after(async () => {
    await running.stop();
  });

  test('a request past the deadline gets its 503, and the journal records that 503 with its code', async () => {
    const records = running.store.records;
    const get = records.get;
    records.get = () => new Promise(() => {});
    try {
      const id = '00000000-0000-4000-8000-000000000001';
      const answer = await call(`/v1/purchaseOrders/${id}`, {
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': location,
          'x-request-id': 'slow-1',
        },
      });
      assert.equal(answer.status, 503);
      assert.equal(answer.body['requestId'], 'slow-1');
      const { body } = await admin('/requests?operation=getPurchaseOrderById');
      const [entry] = body['requests'] as Record<string, unknown>[];
      assert.equal(entry?.['requestId'], 'slow-1');
      assert.equal(entry?.['status'], 503);
      assert.equal(entry?.['code'], answer.body['code']);
      assert.equal(entry?.['location'], location);
    } finally {
      records.get = get;
    }
  });

  test('an injected status and a passed request are both answered and journaled in order', async () => {
    const headers = { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': location };
    const id = '00000000-0000-4000-8000-000000000002';
    const faulted = await call(`/v1/purchaseOrders/${id}`, {
      headers: { ...headers, 'larder-fault': 'status=502', 'x-request-id': 'faulted-1' },
    });
    const missing = await call(`/v1/purchaseOrders/${id}`, {
      headers: { ...headers, 'x-request-id': 'missing-1' },
    });
    assert.deepEqual([faulted.status, missing.status], [502, 404]);
    const { body } = await admin('/requests?limit=2');
    assert.deepEqual(
      (body['requests'] as Record<string, unknown>[]).map((entry) => [
        entry['requestId'],
        entry['status'],
        entry['fault'] !== undefined,
      ]),
      [
        ['faulted-1', 502, true],
        ['missing-1', 404, false],
      ],
    );
  });
});
