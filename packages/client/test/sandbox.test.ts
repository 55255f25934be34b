import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inventoryFixture, purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import {
  createClient,
  createSandbox,
  LarderApiError,
  type LarderSandbox,
  LarderTimeoutError,
} from '../src/index.js';
import { ADMIN_TOKEN, type Larder, logInDirectly, startLarder } from './larder.js';

const T = Date.UTC(2025, 5, 2, 8);

/** createSandbox drives a real Larder the way an integration's test suite would, every call typed. */
describe('the sandbox controls against a real Larder', () => {
  let larder: Larder;
  let sandbox: LarderSandbox;
  before(async () => {
    larder = await startLarder();
    sandbox = createSandbox({ baseUrl: `${larder.url}/`, adminToken: ADMIN_TOKEN });
  });
  after(() => larder.stop());
  /** A sandbox that counts what it sends: a caller's mistake sends nothing. */
  const countingSandbox = () => {
    let sent = 0;
    const counted = createSandbox({
      baseUrl: larder.url,
      adminToken: ADMIN_TOKEN,
      fetch: (input, init) => {
        sent++;
        return fetch(input, init);
      },
    });
    return { counted, sent: () => sent };
  };

  test('baseUrl takes the retail base URL, ending in /v1, as well as the host: one URL serves client and sandbox', async () => {
    for (const baseUrl of [larder.url, `${larder.url}/v1`, `${larder.url}/v1/`]) {
      const view = await createSandbox({ baseUrl, adminToken: ADMIN_TOKEN }).clock.get();
      assert.equal(typeof view.now, 'string', baseUrl);
    }
  });

  test('the clock: set (frozen, from a Date), advance by a duration or seconds, reset', async () => {
    const set = await sandbox.clock.set(new Date(T), { frozen: true });
    assert.deepEqual([set.now, set.frozen], ['2025-06-02T08:00:00.000Z', true]);
    assert.equal(
      (await sandbox.clock.advance({ days: 1, hours: 2, minutes: 3, seconds: 4 })).now,
      '2025-06-03T10:03:04.000Z',
    );
    assert.equal((await sandbox.clock.advance(56)).now, '2025-06-03T10:04:00.000Z');
    assert.equal((await sandbox.clock.get()).now, '2025-06-03T10:04:00.000Z');
    const reset = await sandbox.clock.reset();
    assert.deepEqual([reset.offsetSeconds, reset.frozen], [0, false]);
  });

  test('clock.advance by no whole second forward is a TypeError naming what was given, never sent', async () => {
    const { counted, sent } = countingSandbox();
    // The server would answer `seconds must be >= 1` or `integer`, naming a field the caller may not have given.
    for (const [bad, said] of [
      [{ days: -1 }, '{ days: -1 }'],
      [{}, '{}'],
      [{ hours: 0.0001 }, '{ hours: 0.0001 }'],
      [{ minutes: Number.NaN }, '{ minutes: NaN }'],
      [{ days: 1, secs: 3 } as never, '{ days: 1, secs: 3 }'],
      [{ days: '2' } as never, "{ days: '2' }"],
      [0, '0'],
      [1.5, '1.5'],
    ] as const)
      await assert.rejects(counted.clock.advance(bad), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${said}: ${String(error)}`);
        assert.equal(
          error.message,
          `clock.advance needs days, hours, minutes and seconds (numbers) that add up to a whole number of seconds, at least 1, or that number itself, not ${said}.`,
        );
        return true;
      });
    assert.equal(sent(), 0);
    // Parts add up, one of them negative too.
    await sandbox.clock.set(new Date(T), { frozen: true });
    assert.equal((await sandbox.clock.advance({ days: 1, hours: -23.5 })).now, '2025-06-02T08:30:00.000Z');
    await sandbox.clock.reset();
  });

  test('clock.set takes a date alone as its midnight UTC; an invalid Date or string is a TypeError, never sent', async () => {
    const day = await sandbox.clock.set('2026-12-05', { frozen: true });
    assert.deepEqual([day.now, day.frozen], ['2026-12-05T00:00:00.000Z', true]);
    const { counted, sent } = countingSandbox();
    // What Date.parse reads but the server refuses (no zone, a space, another format, a day that does not exist).
    const refused = [
      '2026-12-05T09:00',
      '2026-12-05 09:00:00Z',
      'Sat, 05 Dec 2026 09:00:00 GMT',
      '2026-02-30',
    ];
    for (const bad of [new Date('not a date'), 'not a date', '2026-13-45', '', ...refused])
      await assert.rejects(counted.clock.set(bad), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${String(bad)}: ${String(error)}`);
        assert.match(
          error.message,
          /^clock\.set needs a valid Date, an RFC 3339 date-time \(2025-06-01T09:00:00Z, or with ±HH:MM\) or a day \(YYYY-MM-DD\)/,
        );
        return true;
      });
    const zoned = await sandbox.clock.set('2026-12-05T09:00:00+02:00', { frozen: true });
    assert.equal(zoned.now, '2026-12-05T07:00:00.000Z');
    assert.equal(sent(), 0);
    await sandbox.clock.reset();
  });

  test('fixtures, a client, its traffic in the journal and an empty report; a location removed is gone', async () => {
    const orders = [1, 2, 3].map((n) => purchaseOrderFixture(n, { modifiedAt: T + n }));
    assert.deepEqual(await sandbox.locations.loadPurchaseOrders('kitchen', orders), { imported: 3 });
    assert.deepEqual(
      await sandbox.locations.loadInventoryHistory('kitchen', [inventoryFixture(1, { modifiedAt: T })]),
      { imported: 1 },
    );
    const overview = await sandbox.locations.list();
    assert.equal(
      overview.locations.find((location) => location.id === 'kitchen')?.records.purchaseOrders.count,
      3,
    );

    const credentials = await sandbox.clients.create({ name: 'sandbox test', locations: ['kitchen'] });
    assert.equal(typeof credentials.clientSecret, 'string');
    await sandbox.requests.clear();
    const api = createClient({ baseUrl: larder.url, ...credentials });
    const seen = [];
    for await (const order of api.purchaseOrders.search({}, { location: 'kitchen' })) seen.push(order.id);
    assert.deepEqual(
      seen,
      orders.map((order) => order.id),
    );

    const mine = await sandbox.requests.list({
      clientId: credentials.clientId,
      operation: 'searchPurchaseOrders',
    });
    assert.deepEqual(
      mine.map((entry) => [entry.status, entry.location]),
      [[200, 'kitchen']],
    );
    assert.deepEqual(await sandbox.requests.list({ clientId: credentials.clientId, status: '4xx' }), []);
    const read = await sandbox.requests.read({
      clientId: credentials.clientId,
      operation: 'searchPurchaseOrders',
    });
    assert.deepEqual(read, { requests: mine, dropped: 0, next: read.next });
    assert.match(read.next, /^0:\d+$/);
    const report = await sandbox.report(credentials.clientId);
    assert.deepEqual([report.requestsJudged, report.findings], [2, []], 'the login and the search');
    // A client id with no traffic is judged on nothing: no findings, and requestsJudged says why.
    const unknown = await sandbox.report('00000000-0000-4000-8000-000000000000');
    assert.deepEqual([unknown.requestsJudged, unknown.findings], [0, []]);

    assert.deepEqual(await sandbox.locations.remove('kitchen'), { deleted: 'kitchen' });
    await assert.rejects(api.purchaseOrders.get(orders[0]!.id, { location: 'kitchen' }), (error: unknown) => {
      assert.ok(error instanceof LarderApiError);
      assert.equal(error.status, 404);
      return true;
    });
  });

  test('a bad fixture is a LarderApiError whose nested errors name the record and field; nothing is stored', async () => {
    const bad = { ...purchaseOrderFixture(9, { modifiedAt: T }), status: 'SHIPPED' } as never;
    await assert.rejects(
      sandbox.locations.loadPurchaseOrders('pantry', [purchaseOrderFixture(8, { modifiedAt: T }), bad]),
      (error: unknown) => {
        assert.ok(error instanceof LarderApiError);
        assert.equal(error.status, 400);
        assert.ok(
          error.errors.some((problem) => problem.fieldName === '[1].status'),
          JSON.stringify(error.errors),
        );
        return true;
      },
    );
    const overview = await sandbox.locations.list();
    assert.equal(
      overview.locations.some((location) => location.id === 'pantry'),
      false,
    );
  });

  test('fault rules: set, add and remove one keeping the others’ counters, clear', async () => {
    await sandbox.faults.set([{ id: 'slow', effect: { type: 'latency', ms: 0 } }]);
    const added = await sandbox.faults.add({
      effect: { type: 'status', status: 503 },
      match: { pathPrefix: '/nowhere' },
    });
    assert.deepEqual(
      added.rules.map((rule) => rule.id),
      ['slow', 'rule-2'],
    );
    assert.deepEqual(
      (await sandbox.faults.remove('slow')).rules.map((rule) => rule.id),
      ['rule-2'],
    );
    assert.deepEqual(await sandbox.faults.clear(), { rules: [] });
    assert.deepEqual(await sandbox.faults.list(), { rules: [] });
  });

  /** A request the journal keeps (an unknown path an integration calls), told apart by its request id. */
  const hit = async (requestId: string) => {
    await (await fetch(`${larder.url}/v1/followed`, { headers: { 'x-request-id': requestId } })).text();
  };
  const FOLLOWED = { status: 404 } as const;

  test('requests.read({ after: next }) lists only what was recorded since that listing', async () => {
    await sandbox.requests.clear();
    await hit('before');
    const first = await sandbox.requests.read(FOLLOWED);
    await hit('since-1');
    await hit('since-2');
    const since = await sandbox.requests.read({ ...FOLLOWED, after: first.next });
    assert.deepEqual(
      since.requests.map((entry) => entry.requestId),
      ['since-1', 'since-2'],
    );
    assert.equal(since.missed, 0);
    assert.deepEqual(await sandbox.requests.list({ ...FOLLOWED, after: since.next }), []);
  });

  test('requests.follow yields what is recorded (limit trims the first listing), then each new entry, until aborted', async () => {
    await sandbox.requests.clear();
    await hit('old-1');
    await hit('old-2');
    const controller = new AbortController();
    const waits: number[] = [];
    // Each poll's wait makes the traffic the next poll finds; the third ends the follow: no real time passes.
    const steps = [() => hit('new-1'), async () => {}, () => hit('new-2')];
    const following = createSandbox({
      baseUrl: larder.url,
      adminToken: ADMIN_TOKEN,
      sleep: async (ms, signal) => {
        waits.push(ms);
        const step = steps.shift();
        if (step === undefined) controller.abort();
        else await step();
        signal?.throwIfAborted();
      },
    });
    const followed = following.requests.follow(
      { ...FOLLOWED, limit: 1 },
      { signal: controller.signal, intervalMs: 250 },
    );
    assert.equal(followed.next, undefined);
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const entry of followed) seen.push(entry.requestId);
      })(),
      (error: unknown) => error instanceof Error && error.name === 'AbortError',
    );
    assert.deepEqual(seen, ['old-2', 'new-1', 'new-2']);
    assert.deepEqual(waits, [250, 250, 250, 250]);
    assert.equal(followed.missed, 0);
    // Every entry listed was taken: going on from `next` lists only what comes later.
    await hit('later');
    assert.deepEqual(
      (await sandbox.requests.list({ ...FOLLOWED, after: followed.next })).map((entry) => entry.requestId),
      ['later'],
    );
  });

  test('requests.follow starts after `after`; a loop left mid-listing leaves next where that listing began', async () => {
    await sandbox.requests.clear();
    await hit('a');
    const cursor = (await sandbox.requests.read()).next;
    await hit('b');
    await hit('c');
    const followed = sandbox.requests.follow({ ...FOLLOWED, after: cursor });
    for await (const entry of followed) {
      assert.equal(entry.requestId, 'b');
      break;
    }
    assert.equal(followed.next, cursor);
    // Going on from there lists b again (an entry already taken, told by its id), and never skips c.
    assert.deepEqual(
      (await sandbox.requests.list({ ...FOLLOWED, after: followed.next })).map((entry) => entry.requestId),
      ['b', 'c'],
    );
    for (const intervalMs of [-1, 1.5, Number.NaN, 2 ** 31])
      assert.throws(() => sandbox.requests.follow({}, { intervalMs }), TypeError);
  });

  test('refusals are LarderApiErrors: a wrong admin token (401), a reset of a database that is not a demo (409)', async () => {
    const wrong = createSandbox({ baseUrl: larder.url, adminToken: 'not-the-admin-token' });
    await assert.rejects(
      wrong.clock.get(),
      (error: unknown) => error instanceof LarderApiError && error.status === 401,
    );
    await assert.rejects(
      sandbox.reset(),
      (error: unknown) => error instanceof LarderApiError && error.status === 409,
    );
  });
});

test("a sandbox call that gets no answer ends at the test's timeoutSignal, with no real waiting", async () => {
  // As a test on a virtual clock does: the timeout fires when the test says (here once the request is out).
  const timeouts: { ms: number; controller: AbortController }[] = [];
  const stalled = createSandbox({
    baseUrl: 'http://larder.test',
    adminToken: 'x',
    timeoutMs: 20_000,
    timeoutSignal: (ms) => {
      const controller = new AbortController();
      timeouts.push({ ms, controller });
      return controller.signal;
    },
    fetch: () => {
      if (timeouts.length === 0) return Promise.reject(new Error("the attempt's timeout is not the test's"));
      for (const { controller } of timeouts)
        controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      return new Promise<Response>(() => {});
    },
  });
  const error = await stalled.clock.get().catch((e: unknown) => e);
  assert.ok(error instanceof LarderTimeoutError, String(error));
  // The attempt's own timeout is said: what was left of timeoutMs when it went (20000 less any real millisecond).
  assert.equal(
    error.message,
    `GET http://larder.test/_larder/clock: no answer within ${timeouts[0]?.ms} ms.`,
  );
  // What was left of the call's timeoutMs: all of it, less the real milliseconds before the attempt.
  assert.ok(
    timeouts.every(({ ms }) => ms > 19_000 && ms <= 20_000),
    JSON.stringify(timeouts),
  );
});

test('a sandbox refusal that quotes the request never shows the admin token', async () => {
  // As a proxy that echoes the Authorization header in its error page does.
  const echoing = createSandbox({
    baseUrl: 'http://larder.test',
    adminToken: 'admin-token-0123456789',
    fetch: async (_input, init) =>
      new Response(`No entry for ${new Headers(init?.headers).get('authorization')}`, { status: 403 }),
  });
  const error = await echoing.clock.get().catch((e: unknown) => e);
  assert.ok(error instanceof LarderApiError);
  assert.equal(error.message, 'HTTP 403 GET http://larder.test/_larder/clock: No entry for Bearer ***');
});

test('rateLimits: what each address (and client and location) has used, and clear to be served again', async () => {
  const larder = await startLarder({ server: { rateLimit: [{ limit: 2, windowMs: 900_000 }] } });
  try {
    const reader = await larder.createReader('all');
    const login = async () => (await logInDirectly(larder.url, reader)).status;
    assert.deepEqual([await login(), await login(), await login()], [200, 200, 429]);
    const state = await larder.sandbox.rateLimits.get();
    assert.deepEqual(state.limits, [{ limit: 2, windowSeconds: 900 }]);
    assert.deepEqual(
      state.counted.map(({ sourceAddress, windows }) => [
        sourceAddress,
        windows[0]?.used,
        windows[0]?.remaining,
      ]),
      [['127.0.0.1', 2, 0]],
    );
    assert.deepEqual((await larder.sandbox.rateLimits.clear()).counted, []);
    assert.equal(await login(), 200);
  } finally {
    await larder.stop();
  }
});
