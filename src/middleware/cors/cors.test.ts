import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/helpers/test-server.js';
import { CORS_EXPOSED_HEADERS } from './cors.js';

const ALLOWED = 'https://app.example.com';
const ADMIN = 'cors-test-admin-token';

const preflight = (
  url: string,
  origin: string,
  headers = 'authorization,content-type,platform-restaurant-external-id',
) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });

describe('with --cors', () => {
  let running: TestServer;
  before(async () => {
    running = await startTestServer({
      config: { cors: [ALLOWED, 'http://localhost:3000'], adminToken: ADMIN },
    });
  });
  after(() => running?.stop());

  test('a preflight from an allowed origin is answered for the retail and auth routes', async () => {
    for (const path of [
      '/v1/purchaseOrders/search',
      '/v1/inventoryHistory/3f1c2a4e-0000-4000-8000-000000000000',
      '/authentication/v1/authentication/login',
      '/authentication/v1/authentication/customer/oauth/token',
      '/.well-known/jwks.json',
    ]) {
      const response = await preflight(`${running.server.url}${path}`, ALLOWED);
      assert.equal(response.status, 204, path);
      assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED, path);
      assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.match(
        response.headers.get('access-control-allow-headers') ?? '',
        /Platform-Restaurant-External-ID/i,
      );
      assert.match(response.headers.get('vary') ?? '', /Origin/);
    }
  });

  test('answers (errors too) carry the origin and expose the request id, retry and rate-limit headers', async () => {
    const response = await fetch(`${running.server.url}/v1/purchaseOrders/search`, {
      method: 'POST',
      headers: {
        origin: ALLOWED,
        'content-type': 'application/json',
        'platform-restaurant-external-id': 'x',
      },
      body: '{}',
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    for (const header of CORS_EXPOSED_HEADERS) assert.ok(exposed.includes(header.toLowerCase()), header);
    // The client times a rate limit's reset (a Unix time) by the server's clock: a browser must see Date.
    assert.ok(exposed.includes('date'));
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
  });

  test('another origin is not allowed', async () => {
    const response = await preflight(
      `${running.server.url}/v1/purchaseOrders/search`,
      'https://evil.example',
    );
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const answer = await fetch(`${running.server.url}/healthz`, {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });

  test('never on the admin API', async () => {
    const response = await preflight(`${running.server.url}/_larder/clock`, ALLOWED, 'authorization');
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    assert.notEqual(response.status, 204);
    const answer = await fetch(`${running.server.url}/_larder/clock`, {
      headers: { origin: ALLOWED, authorization: `Bearer ${ADMIN}` },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });
});

describe('without --cors (the default)', () => {
  let running: TestServer;
  before(async () => {
    running = await startTestServer();
  });
  after(() => running?.stop());

  test('no CORS headers anywhere', async () => {
    const response = await preflight(`${running.server.url}/v1/purchaseOrders/search`, ALLOWED);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    assert.notEqual(response.status, 204);
  });
});
