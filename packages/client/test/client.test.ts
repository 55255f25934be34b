import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';
import { StoreError } from '../../../src/shared/errors.js';
import { inventoryFixture, purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import {
  createClient,
  type InventoryHistoryLogEntry,
  LarderApiError,
  LarderTimeoutError,
  LarderTransportError,
  type Sleep,
} from '../src/index.js';
import { type Credentials, type Larder, startLarder } from './larder.js';

const T = Date.UTC(2025, 5, 2, 8);
const logins = (entries: { operation?: string }[]) =>
  entries.filter((entry) => entry.operation === 'authenticationLoginPost').length;

describe('the client against a real Larder', () => {
  let larder: Larder;
  let reader: Credentials;
  const big = Array.from({ length: 2500 }, (_, n) => inventoryFixture(n + 1, { modifiedAt: T + n * 1000 }));
  const orders = Array.from({ length: 40 }, (_, n) =>
    purchaseOrderFixture(n + 1, { modifiedAt: T + n * 60_000, archived: n % 10 === 0 }),
  );
  before(async () => {
    larder = await startLarder({ tokenTtlSeconds: 3600 });
    await larder.load('loc-big', 'inventoryHistory', big);
    for (const location of ['loc-a', 'loc-b', 'loc-c']) {
      await larder.load(location, 'purchaseOrders', orders);
      await larder.load(location, 'inventoryHistory', big.slice(0, 120));
    }
    reader = await larder.createReader('all');
  });
  after(() => larder.stop());

  const client = (options: { sleep?: Sleep; now?: () => number } = {}) =>
    createClient({ baseUrl: larder.url, ...reader, ...options });

  test('search walks thousands of records across pages, in order, each once; pages() shows the tokens', async () => {
    const api = client();
    const seen: string[] = [];
    for await (const entry of api.inventoryHistory.search({}, { location: 'loc-big', pageSize: 100 }))
      seen.push(entry.inventoryHistoryLogId);
    assert.deepEqual(
      seen,
      big.map((entry) => entry.inventoryHistoryLogId),
    );
    const pages = [];
    for await (const page of api.inventoryHistory.search({}, { location: 'loc-big', pageSize: 500 }).pages())
      pages.push(page);
    assert.equal(pages.length, 5);
    assert.equal(pages[0]?.currentPageToken, '');
    assert.equal(pages[1]?.currentPageToken, pages[0]?.nextPageToken);
    assert.equal(pages.at(-1)?.nextPageToken, '');
    // A walk can resume from any page's token.
    const rest = [];
    for await (const entry of api.inventoryHistory.search(
      {},
      { location: 'loc-big', pageSize: 500, pageToken: pages[3]!.nextPageToken },
    ))
      rest.push(entry);
    assert.equal(rest.length, 500);
  });

  test('filters are typed and sent as given; get by id returns the record', async () => {
    const api = client();
    const received = [];
    for await (const order of api.purchaseOrders.search(
      { includeArchived: true, purchaseOrderStatuses: ['ORDERED'] },
      { location: 'loc-a' },
    ))
      received.push(order.id);
    assert.equal(received.length, 40);
    const archivedLeftOut = [];
    for await (const order of api.purchaseOrders.search({}, { location: 'loc-a' }))
      archivedLeftOut.push(order);
    assert.equal(archivedLeftOut.length, 36);
    const one = await api.purchaseOrders.get(orders[3]!.id.toUpperCase(), { location: 'loc-a' });
    assert.deepEqual(one, orders[3]);
  });

  test('errors carry the ErrorMessage, status and request id; other 4xx are never retried', async () => {
    const api = client();
    await larder.sandbox.requests.clear();
    const missing = await api.inventoryHistory
      .get('00000000-0000-4000-8000-000000000001', { location: 'loc-a' })
      .catch((error: unknown) => error);
    assert.ok(missing instanceof LarderApiError);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 40401);
    assert.match(missing.requestId ?? '', /\S/);
    const bad = await api.purchaseOrders
      .search({ purchaseOrderStatuses: ['LOST' as 'DRAFT'] }, { location: 'loc-a' })
      .pages()
      [Symbol.asyncIterator]()
      .next()
      .catch((error: unknown) => error);
    assert.ok(bad instanceof LarderApiError);
    assert.equal(bad.code, 40001);
    assert.equal(bad.fieldName, 'purchaseOrderStatuses[0]');
    assert.equal(bad.canRetry, false);
    const journal = await larder.journal();
    assert.deepEqual(
      journal.map((entry) => entry.status),
      [200, 404, 400],
      'one login, then each failing request once',
    );
  });

  /** With these URLs, a get logs in at the login's path and calls the retail one: nothing doubled, no 404. */
  const callsLand = async (urls: { baseUrl: string; authBaseUrl?: string }, said: string) => {
    await larder.sandbox.requests.clear();
    const order = await createClient({ ...urls, ...reader }).purchaseOrders.get(orders[1]!.id, {
      location: 'loc-a',
    });
    assert.equal(order.id, orders[1]!.id, said);
    const journal = await larder.journal();
    assert.deepEqual(
      journal.map((entry) => `${entry.status} ${entry.path}`),
      ['200 /authentication/v1/authentication/login', `200 /v1/purchaseOrders/${orders[1]!.id}`],
      said,
    );
  };

  test("authBaseUrl takes the interface's own {auth_base_url}, ending in /authentication/v1, as well as the host", async () => {
    // The interface writes the login as POST {auth_base_url}/authentication/login, its base ending in
    // /authentication/v1: given as such, the login went to /authentication/v1/authentication/v1/… (a 404).
    for (const authBaseUrl of [
      larder.url,
      `${larder.url}/authentication/v1`,
      `${larder.url}/authentication/v1/`,
    ])
      await callsLand({ baseUrl: larder.url, authBaseUrl }, authBaseUrl);
  });

  test("baseUrl takes the interface's own base URL, ending in /v1, as well as the host", async () => {
    // Given so, the client called /v1/v1/… (a 404 "No such endpoint"), and logged in at /v1/authentication/….
    for (const baseUrl of [larder.url, `${larder.url}/`, `${larder.url}/v1`, `${larder.url}/v1/`])
      await callsLand({ baseUrl }, baseUrl);
  });

  test("an API error's message names the request: status, method and URL, never a header, token or body", async () => {
    // The server's words alone ("No such endpoint") did not say which of a program's calls failed.
    const id = '00000000-0000-4000-8000-000000000001';
    const missing = await client()
      .inventoryHistory.get(id, { location: 'loc-a' })
      .catch((error: unknown) => error);
    assert.ok(missing instanceof LarderApiError);
    const url = `${larder.url}/v1/inventoryHistory/${id}`;
    assert.deepEqual([missing.method, missing.url], ['GET', url]);
    // One sentence: the server's full stop moves after the request.
    assert.equal(missing.message, `No inventory history entry ${id} at location loc-a (404 GET ${url})`);
    const bad = await client()
      .purchaseOrders.search(
        { purchaseOrderStatuses: ['LOST' as 'DRAFT'] },
        { location: 'loc-a', pageSize: 7 },
      )
      .pages()
      [Symbol.asyncIterator]()
      .next()
      .catch((error: unknown) => error);
    assert.ok(bad instanceof LarderApiError);
    assert.equal(
      bad.message,
      `${bad.body?.message.replace(/\.$/, '')} (400 POST ${larder.url}/v1/purchaseOrders/search?pageSize=7)`,
    );
    const refused = await createClient({
      baseUrl: larder.url,
      clientId: reader.clientId,
      clientSecret: 'wrong-secret',
    })
      .purchaseOrders.get(id, { location: 'loc-a' })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof LarderApiError);
    assert.equal(
      refused.message,
      `The client credentials are not valid (401 POST ${larder.url}/authentication/v1/authentication/login)`,
    );
    // What the request carried besides its URL stays out: its token, the login's body.
    for (const error of [missing, bad, refused])
      assert.doesNotMatch(error.message, /Bearer|wrong-secret|userAccessType/, error.message);
  });

  test('one login serves a whole multi-location sync, even when every call starts at once', async () => {
    await larder.sandbox.requests.clear();
    const api = client();
    const runs = ['loc-a', 'loc-b', 'loc-c'].flatMap((location) => [
      api.purchaseOrders.sync({ location }),
      api.inventoryHistory.sync({ location }),
    ]);
    const counts = await Promise.all(
      runs.map(async (run) => {
        let count = 0;
        for await (const _ of run) count++;
        return count;
      }),
    );
    assert.deepEqual(counts, [40, 120, 40, 120, 40, 120]);
    const journal = await larder.journal();
    assert.equal(logins(journal), 1);
    assert.equal(new Set(journal.map((entry) => entry.tokenFingerprint)).size, 1);
    assert.deepEqual(await larder.report(reader.clientId), []);
  });

  test('a token that expires mid-walk brings one new login and the walk goes on', async () => {
    await larder.sandbox.requests.clear();
    const api = client();
    const seen: InventoryHistoryLogEntry[] = [];
    for await (const entry of api.inventoryHistory.search({}, { location: 'loc-big', pageSize: 250 })) {
      seen.push(entry);
      // Past the token's hour, on the server's clock.
      if (seen.length === 300) await larder.advance(2 * 3600);
    }
    assert.equal(seen.length, big.length);
    const journal = await larder.journal();
    assert.equal(logins(journal), 2);
    const refused = journal.filter((entry) => entry.status === 401);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]?.code, 40101);
    assert.deepEqual(await larder.report(reader.clientId), []);
  });

  test('the token is renewed only in its final minute', async () => {
    let now = await larder.clockNow();
    const setClock = (ms: number) => larder.sandbox.clock.set(new Date(ms), { frozen: true });
    await setClock(now);
    await larder.sandbox.requests.clear();
    // A client of its own: the server hands an existing client its current token with what is left of it.
    const fresh = await larder.createReader(['loc-a']);
    const api = createClient({ baseUrl: larder.url, ...fresh, now: () => now });
    const start = now;
    const read = () => api.purchaseOrders.get(orders[0]!.id, { location: 'loc-a' });
    await read();
    for (const at of [start + 1000, start + 3539_000]) {
      now = at;
      await setClock(at);
      await read();
    }
    assert.equal(logins(await larder.journal()), 1, 'still more than a minute left');
    now = start + 3541_000;
    await setClock(now);
    await read();
    const journal = await larder.journal();
    assert.equal(logins(journal), 2);
    const fingerprints = journal.filter((e) => e.operation !== 'authenticationLoginPost');
    assert.notEqual(fingerprints[0]?.tokenFingerprint, fingerprints.at(-1)?.tokenFingerprint);
    await larder.sandbox.clock.reset();
  });

  test('aborting stops a walk between pages and a pending call; nothing more is sent', async () => {
    await larder.sandbox.requests.clear();
    const api = client();
    const controller = new AbortController();
    let count = 0;
    const walk = (async () => {
      for await (const _ of api.inventoryHistory.search(
        {},
        { location: 'loc-big', pageSize: 100, signal: controller.signal },
      )) {
        count++;
        if (count === 150) controller.abort();
      }
    })();
    await assert.rejects(walk, { name: 'AbortError' });
    assert.equal(count, 200, 'the page in hand is finished, no further page is asked for');
    const searches = (await larder.journal()).filter((e) => e.operation === 'searchInventoryHistory');
    assert.equal(searches.length, 2);
    const already = AbortSignal.abort();
    await assert.rejects(api.purchaseOrders.get(orders[0]!.id, { location: 'loc-a', signal: already }), {
      name: 'AbortError',
    });
  });
});

test('a short-lived token (--token-ttl 30) serves the calls within its life, not one login per call', async () => {
  const larder = await startLarder({ tokenTtlSeconds: 30 });
  try {
    const orders = Array.from({ length: 5 }, (_, n) => purchaseOrderFixture(n + 1, { modifiedAt: T + n }));
    await larder.load('loc-short', 'purchaseOrders', orders);
    const reader = await larder.createReader(['loc-short']);
    await larder.sandbox.requests.clear();
    const time = await larder.virtualTime();
    const client = createClient({ baseUrl: larder.url, ...reader, now: time.now, sleep: time.sleep });
    let count = 0;
    for await (const _ of client.purchaseOrders.search({}, { location: 'loc-short', pageSize: 1 })) count++;
    assert.equal(count, 5);
    assert.equal(logins(await larder.journal()), 1);
  } finally {
    await larder.stop();
  }
});

test('a token that expires while a call waits out a 429 is renewed before the retry, not sent to be refused', async () => {
  const larder = await startLarder({ tokenTtlSeconds: 30 });
  try {
    const order = purchaseOrderFixture(1, { modifiedAt: T });
    await larder.load('loc-short', 'purchaseOrders', [order]);
    const reader = await larder.createReader(['loc-short']);
    await larder.sandbox.faults.set([
      {
        match: { operation: 'getPurchaseOrderById' },
        when: { next: 1 },
        effect: { type: 'status', status: 429, retryAfterSeconds: 40 },
      },
    ]);
    await larder.sandbox.requests.clear();
    const time = await larder.virtualTime();
    const client = createClient({ baseUrl: larder.url, ...reader, now: time.now, sleep: time.sleep });
    assert.deepEqual(await client.purchaseOrders.get(order.id, { location: 'loc-short' }), order);
    assert.deepEqual(
      (await larder.journal()).map((entry) => `${entry.operation} ${entry.status}`),
      [
        'authenticationLoginPost 200',
        'getPurchaseOrderById 429',
        'authenticationLoginPost 200',
        'getPurchaseOrderById 200',
      ],
    );
    assert.deepEqual(await larder.report(reader.clientId), []);
  } finally {
    await larder.stop();
  }
});

describe('retries and failures', () => {
  test('a 503 from the server is retried with growing, jittered backoff of at least a second', async () => {
    let failures = 3;
    const flakyLarder = await startLarder({
      wrapStore: (store) => ({
        ...store,
        records: {
          ...store.records,
          page: (kind, query) => {
            if (failures-- > 0) return Promise.reject(new StoreError('STORE_UNAVAILABLE', 'database down'));
            return store.records.page(kind, query);
          },
        },
      }),
    });
    try {
      await flakyLarder.load('loc-1', 'purchaseOrders', [purchaseOrderFixture(1, { modifiedAt: T })]);
      const reader = await flakyLarder.createReader(['loc-1']);
      const waits: number[] = [];
      const api = createClient({
        baseUrl: flakyLarder.url,
        ...reader,
        // Waiting moves the server's virtual clock: no real time passes, and the report judges the pacing.
        sleep: async (ms) => {
          waits.push(ms);
          await flakyLarder.advance(Math.ceil(ms / 1000));
        },
      });
      const found = [];
      for await (const order of api.purchaseOrders.search({}, { location: 'loc-1' })) found.push(order);
      assert.equal(found.length, 1);
      assert.equal(waits.length, 3);
      waits.forEach((wait, i) => {
        assert.ok(wait >= 1000 * 2 ** i && wait <= 2000 * 2 ** i, `wait ${i}: ${wait}`);
      });
      const statuses = (await flakyLarder.journal()).map((entry) => entry.status);
      assert.deepEqual(statuses, [200, 503, 503, 503, 200]);
      assert.deepEqual(await flakyLarder.report(reader.clientId), []);
      failures = 100;
      const giveUp = await createClient({
        baseUrl: flakyLarder.url,
        ...reader,
        retry: { maxAttempts: 2 },
        sleep: async () => {},
      })
        .purchaseOrders.search({}, { location: 'loc-1' })
        [Symbol.asyncIterator]()
        .next()
        .catch((error: unknown) => error);
      assert.ok(giveUp instanceof LarderApiError);
      assert.equal(giveUp.status, 503);
      assert.equal(giveUp.code, 50301);
    } finally {
      await flakyLarder.stop();
    }
  });

  test('a refused connection is a LarderTransportError after the bounded attempts', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let slept = 0;
    const api = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: 'x',
      clientSecret: 'y',
      retry: { maxAttempts: 3 },
      sleep: async () => {
        slept++;
      },
    });
    const error = await api.purchaseOrders.get('x', { location: 'l' }).catch((e: unknown) => e);
    assert.ok(error instanceof LarderTransportError);
    assert.match(error.message, /ECONNREFUSED/);
    assert.equal(slept, 2);
  });

  test('a server that never answers is a LarderTimeoutError after timeoutMs', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const api = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        clientId: 'x',
        clientSecret: 'y',
        timeoutMs: 50,
        retry: false,
      });
      const error = await api.purchaseOrders.get('x', { location: 'l' }).catch((e: unknown) => e);
      assert.ok(error instanceof LarderTimeoutError);
      assert.ok(error instanceof LarderTransportError);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('a fetch that ignores its signal and never answers is a LarderTimeoutError after timeoutMs all the same', async () => {
    // The attempt's timeout fires once the fetch is under way: an event, not 30 ms of real time.
    const timeouts: AbortController[] = [];
    const api = createClient({
      baseUrl: 'http://larder.test',
      clientId: 'x',
      clientSecret: 'y',
      timeoutMs: 30,
      retry: false,
      // A clock that stands still: no part of the call's timeoutMs is spent before the attempt.
      now: () => 0,
      timeoutSignal: () => {
        const timeout = new AbortController();
        timeouts.push(timeout);
        return timeout.signal;
      },
      fetch: () => {
        for (const timeout of timeouts.splice(0))
          timeout.abort(new DOMException('The operation timed out.', 'TimeoutError'));
        return new Promise<Response>(() => {});
      },
    });
    const error = await api.purchaseOrders.get('x', { location: 'l' }).catch((e: unknown) => e);
    assert.ok(error instanceof LarderTimeoutError, String(error));
    assert.match(error.message, /no answer within 30 ms/);
  });

  test('a retry never runs past maxElapsedMs: it gets only the time left, and none is left for a third', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      for (const [maxElapsedMs, left] of [
        [150, 50],
        [200, 100],
      ] as const) {
        let attempts = 0;
        // The client's clock moves only when an attempt ends, by its timeout: each of these times out.
        let clock = 0;
        const api = createClient({
          baseUrl: `http://127.0.0.1:${port}`,
          clientId: 'x',
          clientSecret: 'y',
          timeoutMs: 100,
          retry: { baseDelayMs: 0, maxElapsedMs },
          now: () => clock,
          sleep: async () => {},
          fetch: (async (input, init) => {
            attempts++;
            try {
              return await fetch(input, init);
            } finally {
              clock += attempts === 1 ? 100 : left;
            }
          }) as typeof fetch,
        });
        const error = await api.purchaseOrders.get('x', { location: 'l' }).catch((e: unknown) => e);
        assert.ok(error instanceof LarderTimeoutError, String(error));
        assert.match(error.message, new RegExp(`no answer within ${left} ms`));
        assert.equal(attempts, 2, `maxElapsedMs ${maxElapsedMs}: the second attempt ends it`);
      }
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('an error answer that quotes the request never shows the client secret or the access token', async () => {
    const secret = 'sec"ret-\\-0123456789';
    // As validation frameworks that quote the input do (a 422 with each field's value): the request, echoed.
    const echo: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url?.startsWith('/authentication/') && !body.includes('"clientId":"ok"')) {
          response.writeHead(422, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
          response.end(
            JSON.stringify({
              status: '422',
              code: 42201,
              message: `Refused: ${body}`,
              requestId: 'req-1',
              fieldName: 'clientSecret',
              developerMessage: body,
              errors: [{ message: body }],
            }),
          );
        } else if (request.url?.startsWith('/authentication/')) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ token: { accessToken: 'tok.en-0123456789', expiresIn: 3600 } }));
        } else {
          response.writeHead(400, { 'content-type': 'text/plain' });
          response.end(`Bad request with ${request.headers.authorization}`);
        }
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as { port: number };
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      const refused = await createClient({ baseUrl, clientId: 'x', clientSecret: secret })
        .purchaseOrders.get('x', { location: 'l' })
        .catch((e: unknown) => e);
      assert.ok(refused instanceof LarderApiError);
      assert.deepEqual(
        [refused.status, refused.code, refused.requestId, refused.fieldName],
        [422, 42201, 'req-1', 'clientSecret'],
      );
      const retail = await createClient({ baseUrl, clientId: 'ok', clientSecret: secret })
        .purchaseOrders.get('x', { location: 'l' })
        .catch((e: unknown) => e);
      assert.ok(retail instanceof LarderApiError);
      assert.equal(retail.status, 400);
      for (const error of [refused, retail])
        for (const shown of [
          String(error),
          JSON.stringify(error),
          inspect(error, { depth: 10 }),
          error.stack ?? '',
        ]) {
          assert.doesNotMatch(shown, /0123456789/, shown);
        }
      assert.match(refused.message, /"clientSecret":"\*\*\*"/, 'what was hidden is marked');
      assert.equal(
        retail.message,
        `HTTP 400 GET ${baseUrl}/v1/purchaseOrders/x: Bad request with Bearer ***`,
      );
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });

  test('a one-character secret is masked where it stands alone, not inside words; a requestId is never masked', async () => {
    // As a server that quotes the refused request does; the ids are the server's own, which hold no secret.
    const echo = (body: string) => ({
      status: '422',
      code: 42201,
      message: `Refused: ${body}`,
      requestId: 'b-b0b',
      developerMessage: 'the body was bad',
      errors: [{ status: '422', code: 42201, message: 'clientSecret b is wrong', requestId: 'b-b1b' }],
    });
    const answers = [
      async (body: string) =>
        Response.json(echo(body), { status: 422, headers: { 'x-request-id': 'b-b0b' } }),
      // Not an ErrorMessage: the message shows the text.
      async () =>
        Response.json(
          // Masked as parsed: the escape before it in the JSON sent (`\nb`) does not keep `b` from standing alone.
          { error: 'invalid_client', error_description: 'clientSecret:\nb is wrong', requestId: 'b-b2b' },
          { status: 401, headers: { 'x-request-id': 'b-b2b' } },
        ),
      async () =>
        new Response('a bad body: clientSecret=b', { status: 400, headers: { 'x-request-id': 'b-b3b' } }),
    ];
    const errors: unknown[] = [];
    // A one-character secret, as a test's or a demo's: inside words (`bad`, `body`) it is no secret.
    for (const answer of answers)
      errors.push(
        await createClient({
          baseUrl: 'http://127.0.0.1:9',
          clientId: 'x',
          clientSecret: 'b',
          fetch: async (_input, init) => answer(String(init?.body)),
        })
          .purchaseOrders.get('x', { location: 'l' })
          .catch((e: unknown) => e),
      );
    const [refused, oauth, plain] = errors;
    const login = 'http://127.0.0.1:9/authentication/v1/authentication/login';
    assert.ok(refused instanceof LarderApiError && oauth instanceof LarderApiError);
    assert.ok(plain instanceof LarderApiError);
    assert.equal(
      refused.message,
      `Refused: {"clientId":"x","clientSecret":"***","userAccessType":"PLATFORM_MACHINE_CLIENT"} (422 POST ${login})`,
    );
    assert.deepEqual(
      [refused.requestId, refused.body?.requestId, refused.errors[0]?.requestId],
      ['b-b0b', 'b-b0b', 'b-b1b'],
    );
    assert.deepEqual(
      [refused.developerMessage, refused.errors[0]?.message],
      ['the body was bad', 'clientSecret *** is wrong'],
    );
    assert.equal(
      oauth.message,
      `HTTP 401 POST ${login}: {"error":"invalid_client","error_description":"clientSecret:\\n*** is wrong","requestId":"b-b2b"}`,
    );
    assert.equal(oauth.requestId, 'b-b2b');
    assert.deepEqual(
      [plain.message, plain.requestId],
      [`HTTP 400 POST ${login}: a bad body: clientSecret=***`, 'b-b3b'],
    );
    // Nowhere else either: standing alone, the secret is in no error but in the server's ids.
    for (const error of [refused, oauth, plain])
      for (const shown of [String(error), JSON.stringify(error), inspect(error, { depth: 10 })])
        assert.doesNotMatch(shown.replaceAll(/b-b\db/g, ''), /(?<![\p{L}\p{N}_])b(?![\p{L}\p{N}_])/u, shown);
  });

  test('a 5xx whose ErrorMessage says canRetry "false" is final: one request, no wait', async () => {
    let requests = 0;
    const final: Server = createServer((_request, response) => {
      requests++;
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        '{"status":"500","code":50001,"message":"broken for good","requestId":"r","canRetry":"false"}',
      );
    });
    await new Promise<void>((resolve) => final.listen(0, '127.0.0.1', resolve));
    const { port } = final.address() as { port: number };
    try {
      let slept = 0;
      const api = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        clientId: 'x',
        clientSecret: 'y',
        sleep: async () => {
          slept++;
        },
      });
      await assert.rejects(api.purchaseOrders.get('x', { location: 'l' }), {
        name: 'LarderApiError',
        status: 500,
        canRetry: false,
      });
      assert.equal(requests, 1);
      assert.equal(slept, 0);
    } finally {
      await new Promise<void>((resolve) => final.close(() => resolve()));
    }
  });

  test('an abort during a backoff wait ends it at once', async () => {
    const silent: Server = createServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"status":"503","code":50301,"message":"down","requestId":"r"}');
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const controller = new AbortController();
      const api = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        clientId: 'x',
        clientSecret: 'y',
        retry: { baseDelayMs: 3_600_000, maxElapsedMs: 86_400_000 },
      });
      const pending = api.purchaseOrders.get('x', { location: 'l', signal: controller.signal });
      setImmediate(() => setTimeout(() => controller.abort(), 20));
      await assert.rejects(pending, { name: 'AbortError' });
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
