import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { type AppConfig, createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const ADMIN = 'admin-secret-token';
const LOGIN = '/authentication/v1/authentication/login';
const TOKEN = '/authentication/v1/authentication/customer/oauth/token';
/** A quarter-hour boundary, so the 15-minute window's end is known. */
const START = '2025-03-10T09:00:00.000Z';

for (const backend of await backends()) {
  describeBackend(`rate limits on the virtual clock (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let credentials: { clientId: string; clientSecret: string };
    const build = (config: Partial<AppConfig>) =>
      createApp({
        store: db.store,
        clock: createTestClock(Date.parse(START)),
        logger: silentLogger,
        config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false, ...config },
      });

    before(async () => {
      db = await backend.create();
      for (const id of ['loc-1', 'loc-2']) await db.store.locations.upsert({ id });
      credentials = await createClientCredentials(db.store, { name: 'c', allLocations: true });
    });
    after(() => db.destroy());

    const client = (larder: LarderApp) => {
      const admin = (method: string, path: string, body?: unknown) =>
        larder.app.request(`/_larder${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const login = (secret = credentials.clientSecret) =>
        larder.app.request(LOGIN, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            clientId: credentials.clientId,
            clientSecret: secret,
            userAccessType: 'PLATFORM_MACHINE_CLIENT',
          }),
        });
      const token = () =>
        larder.app.request(TOKEN, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${credentials.clientId}&client_secret=${credentials.clientSecret}`,
        });
      const get = (accessToken: string, location = 'loc-1') =>
        larder.app.request('/v1/purchaseOrders/00000000-0000-4000-8000-000000000000', {
          headers: { authorization: `Bearer ${accessToken}`, 'platform-restaurant-external-id': location },
        });
      const advance = (seconds: number) => admin('POST', '/clock/advance', { seconds });
      return { admin, login, token, get, advance };
    };

    test('retail: per client and location, exhausted and restored by moving the virtual clock', async () => {
      const larder = await build({
        adminToken: ADMIN,
        rateLimit: [
          { limit: 5, windowMs: 1000 },
          { limit: 20, windowMs: 900_000 },
        ],
        rateLimitHeaders: 'both',
      });
      const { admin, login, get, advance } = client(larder);
      assert.equal((await admin('PUT', '/clock', { now: START, frozen: true })).status, 200);
      const { accessToken } = ((await (await login()).json()) as { token: { accessToken: string } }).token;

      const statuses = async (n: number, location = 'loc-1') => {
        const seen: number[] = [];
        for (let i = 0; i < n; i++) seen.push((await get(accessToken, location)).status);
        return seen;
      };
      // The record does not exist: 404s are counted like any answered request.
      assert.deepEqual(await statuses(6), [404, 404, 404, 404, 404, 429]);
      const refused = await get(accessToken);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal(((await refused.json()) as { code: number }).code, 42902);
      assert.deepEqual(await statuses(5, 'loc-2'), [404, 404, 404, 404, 404]);

      for (let second = 1; second < 4; second++) {
        await advance(1);
        assert.deepEqual(await statuses(5), [404, 404, 404, 404, 404]);
      }
      await advance(1);
      const spent = await get(accessToken);
      assert.equal(spent.status, 429);
      // 900 s window, 4 s into it.
      assert.equal(spent.headers.get('retry-after'), '896');
      assert.equal(spent.headers.get('ratelimit'), '"20/900s";r=0;t=896');
      assert.equal(spent.headers.get('x-ratelimit-reset'), String(Date.parse(START) / 1000 + 900));
      await advance(895);
      assert.equal((await get(accessToken)).status, 429);
      await advance(1);
      assert.equal((await get(accessToken)).status, 404);

      const journal = larder.journal?.list({ status: '429' }) ?? [];
      assert.ok(journal.length >= 3);
      assert.ok(journal.every((entry) => entry.code === 42902 && entry.retryAfterSeconds !== undefined));
      assert.ok(
        journal.every((entry) => entry.clientId === credentials.clientId && entry.fault === undefined),
      );
      const report = (await (await admin('GET', `/report?clientId=${credentials.clientId}`)).json()) as {
        findings: { rule: string; count: number; message: string }[];
      };
      // Only the request 895 s into a 896 s Retry-After: those sent once the frozen clock was advanced by exactly
      // Retry-After waited long enough, however long the 429 took in real time.
      const early = report.findings.find((f) => f.rule === 'retry-before-retry-after');
      assert.equal(early?.count, 1);
      assert.match(early.message, /895\.0 s after a 429 that asked for 896 s/);
    });

    test('login and token: per address; the token endpoint answers in RFC 6749 shape', async () => {
      const larder = await build({ adminToken: ADMIN, rateLimit: [{ limit: 3, windowMs: 60_000 }] });
      const { admin, login, token } = client(larder);
      await admin('PUT', '/clock', { now: START, frozen: true });
      const first = await login();
      assert.equal(first.status, 200);
      // The platform's fields only, by default.
      assert.equal(first.headers.get('x-ratelimit-limit'), '3');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '2');
      assert.equal(first.headers.get('ratelimit'), null);
      assert.equal((await login('wrong')).status, 401);
      assert.equal((await token()).status, 200);
      const refusedLogin = await login();
      assert.equal(refusedLogin.status, 429);
      assert.equal(((await refusedLogin.json()) as { code: number }).code, 42902);
      assert.equal(refusedLogin.headers.get('retry-after'), '60');
      const refusedToken = await token();
      assert.equal(refusedToken.status, 429);
      assert.equal(refusedToken.headers.get('retry-after'), '60');
      assert.equal(((await refusedToken.json()) as { error: string }).error, 'temporarily_unavailable');
      // Refused before the handler: the journal still names the client of Basic credentials.
      const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
      const refusedBasic = await larder.app.request(TOKEN, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      assert.equal(refusedBasic.status, 429);
      const [last] = larder.journal?.list({ limit: 1 }) ?? [];
      assert.deepEqual(
        [last?.status, last?.code, last?.clientId],
        [429, 'temporarily_unavailable', credentials.clientId],
      );
    });

    test('GET /_larder/rate-limits shows each count; DELETE starts them again', async () => {
      const larder = await build({
        adminToken: ADMIN,
        rateLimit: [
          { limit: 3, windowMs: 1000 },
          { limit: 10, windowMs: 900_000 },
        ],
      });
      const { admin, login, get, advance } = client(larder);
      await admin('PUT', '/clock', { now: START, frozen: true });
      const state = async () => {
        const response = await admin('GET', '/rate-limits');
        assert.equal(response.status, 200);
        return (await response.json()) as {
          limits: unknown[];
          counted: { clientId?: string; location?: string; sourceAddress?: string; windows: unknown[] }[];
          more: number;
        };
      };
      assert.deepEqual(await state(), {
        limits: [
          { limit: 3, windowSeconds: 1 },
          { limit: 10, windowSeconds: 900 },
        ],
        counted: [],
        more: 0,
      });
      const { accessToken } = ((await (await login()).json()) as { token: { accessToken: string } }).token;
      for (let i = 0; i < 3; i++) await get(accessToken);
      assert.equal((await get(accessToken)).status, 429);
      await get(accessToken, 'loc-2');
      await advance(1);
      const window = (limit: number, windowSeconds: number, used: number, resetsAt: string) => ({
        limit,
        windowSeconds,
        used,
        remaining: limit - used,
        resetsAt,
      });
      const second = new Date(Date.parse(START) + 2000).toISOString();
      const quarter = new Date(Date.parse(START) + 900_000).toISOString();
      // A second later the 1 s windows are over; the 15-minute ones hold what was counted (the 429 was not).
      assert.deepEqual((await state()).counted, [
        {
          clientId: credentials.clientId,
          location: 'loc-1',
          windows: [window(3, 1, 0, second), window(10, 900, 3, quarter)],
        },
        {
          clientId: credentials.clientId,
          location: 'loc-2',
          windows: [window(3, 1, 0, second), window(10, 900, 1, quarter)],
        },
        // No address is known in process: the login counts under '-'.
        { sourceAddress: '-', windows: [window(3, 1, 0, second), window(10, 900, 1, quarter)] },
      ]);

      const cleared = await admin('DELETE', '/rate-limits');
      assert.equal(cleared.status, 200);
      assert.deepEqual(((await cleared.json()) as { counted: unknown[] }).counted, []);
      assert.equal((await get(accessToken)).headers.get('x-ratelimit-remaining'), '2');
      assert.equal((await admin('GET', '/rate-limits?clientId=x')).status, 400);
    });

    test('off (the default): no limit and no rate-limit fields', async () => {
      const larder = await build({});
      const { login } = client(larder);
      for (let i = 0; i < 30; i++) {
        const response = await login();
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('ratelimit'), null);
        assert.equal(response.headers.get('x-ratelimit-remaining'), null);
      }
    });

    test('off: the admin API shows no limits and nothing counted, and clearing is harmless', async () => {
      const { admin } = client(await build({ adminToken: ADMIN }));
      for (const method of ['GET', 'DELETE']) {
        const response = await admin(method, '/rate-limits');
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), { limits: [], counted: [], more: 0 });
      }
    });
  });
}
