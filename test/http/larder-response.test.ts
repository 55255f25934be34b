import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { TOKEN_ENDPOINT_PATH } from '../../src/auth/oauth-token-route.js';
import { LarderResponse } from '../../src/http/larder-response.js';
import { PLATFORM_RATE_LIMITS } from '../../src/middleware/rate-limit/rate-windows.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The header block a response writes, as text, without a socket. */
const headerBlock = (write: (response: LarderResponse) => void): string => {
  const response = new LarderResponse(new IncomingMessage(new Socket()));
  write(response);
  return String((response as unknown as { _header: string })._header);
};

const lines = (block: string, name: string) =>
  block.split('\r\n').filter((line) => line.toLowerCase().startsWith(`${name}:`));

describe('LarderResponse: deferred headers join the route’s in one writeHead', () => {
  test('a record: both sets are written, each once, and the route’s own value wins', () => {
    const block = headerBlock((response) => {
      response.deferHeader('x-request-id', 'r-1');
      response.deferHeader('content-type', 'text/plain');
      response.writeHead(200, { 'content-type': 'application/json', 'Content-Length': 2 });
    });
    assert.deepEqual(lines(block, 'x-request-id'), ['x-request-id: r-1']);
    assert.deepEqual(lines(block, 'content-type'), ['content-type: application/json']);
    assert.deepEqual(lines(block, 'content-length'), ['Content-Length: 2']);
  });

  test('a later deferred value replaces an earlier one; getHeader sees it before the head is written', () => {
    const response = new LarderResponse(new IncomingMessage(new Socket()));
    response.deferHeader('ratelimit', 'a');
    response.deferHeader('ratelimit', 'b');
    assert.equal(response.getHeader('RateLimit'), 'b');
    response.writeHead(204);
    assert.deepEqual(lines(String((response as unknown as { _header: string })._header), 'ratelimit'), [
      'ratelimit: b',
    ]);
  });

  test('a reason phrase, a header list, and headers set the Node way are all kept', () => {
    const withReason = headerBlock((response) => {
      response.deferHeader('x-request-id', 'r-2');
      response.writeHead(503, 'Busy', { 'retry-after': '1' });
    });
    assert.match(withReason, /^HTTP\/1\.1 503 Busy\r\n/);
    assert.equal(lines(withReason, 'x-request-id').length, 1);
    assert.equal(lines(withReason, 'retry-after').length, 1);

    const withList = headerBlock((response) => {
      response.deferHeader('x-request-id', 'r-3');
      response.deferHeader('content-type', 'text/plain');
      response.writeHead(200, ['content-type', 'application/json']);
    });
    assert.deepEqual(lines(withList, 'x-request-id'), ['x-request-id: r-3']);
    assert.deepEqual(lines(withList, 'content-type'), ['content-type: application/json']);

    const mixed = headerBlock((response) => {
      response.setHeader('cache-control', 'no-store');
      response.deferHeader('x-request-id', 'r-4');
      response.writeHead(200, { 'content-type': 'application/json' });
    });
    for (const name of ['cache-control', 'x-request-id', 'content-type'])
      assert.equal(lines(mixed, name).length, 1);
  });

  test('headers deferred after the head was written are dropped, not thrown', () => {
    const response = new LarderResponse(new IncomingMessage(new Socket()));
    response.writeHead(200);
    // The head exists: a late header must not throw ERR_HTTP_HEADERS_SENT, nor be kept as if it were sent.
    assert.doesNotThrow(() => response.deferHeader('x-late', '1'));
    assert.equal(response.getHeader('x-late'), undefined);
  });
});

describe('on a real socket: the request id and the rate-limit state, once each', () => {
  let running: TestServer;
  before(async () => {
    running = await startTestServer({
      config: { rateLimit: PLATFORM_RATE_LIMITS, rateLimitHeaders: 'both' },
    });
  });
  after(() => running.stop());

  const exchange = (text: string) => rawExchange(running.server.port, text);

  test('an answer made by a route (the health check)', async () => {
    const answer = await exchange(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: trace-1\r\nConnection: close\r\n\r\n',
    );
    const head = answer.split('\r\n\r\n')[0]!;
    assert.match(head, /^HTTP\/1\.1 200/);
    assert.deepEqual(lines(head, 'x-request-id'), ['x-request-id: trace-1']);
  });

  test('an OAuth error answer, after the rate limiter counted it', async () => {
    const answer = await exchange(
      `POST ${TOKEN_ENDPOINT_PATH} HTTP/1.1\r\nHost: x\r\nX-Request-Id: trace-2\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\nConnection: close\r\n\r\ngrant_type=client_credentials`,
    );
    const head = answer.split('\r\n\r\n')[0]!;
    assert.match(head, /^HTTP\/1\.1 40[01]/);
    assert.deepEqual(lines(head, 'x-request-id'), ['x-request-id: trace-2']);
    for (const name of [
      'ratelimit',
      'ratelimit-policy',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ])
      assert.equal(lines(head, name).length, 1, name);
    assert.match(answer.split('\r\n\r\n')[1] ?? '', /invalid_(client|request)/);
  });

  test('an ErrorMessage from the error edge, which names the request id itself', async () => {
    const answer = await exchange(
      'GET /v1/purchaseOrders/abc HTTP/1.1\r\nHost: x\r\nX-Request-Id: trace-3\r\nConnection: close\r\n\r\n',
    );
    const [head, body] = answer.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 401/);
    assert.deepEqual(lines(head!, 'x-request-id'), ['x-request-id: trace-3']);
    assert.equal((JSON.parse(body!) as { requestId: string }).requestId, 'trace-3');
  });
});
