import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock, type TestClock } from '../../src/shared/clock.js';
import { createJsonLogger, silentLogger } from '../../src/shared/logger.js';
import { adminRequests } from '../helpers/admin-requests.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const ADMIN = 'admin-secret-token';
const ISSUER = 'http://larder.test';
const LOGIN = '/authentication/v1/authentication/login';
const TOKEN = '/authentication/v1/authentication/customer/oauth/token';
const T0 = Date.UTC(2025, 2, 10, 9);

const build = (instance: BackendInstance, clock: TestClock, adminToken?: string, journalSize?: number) =>
  createApp({
    store: instance.store,
    clock,
    logger: silentLogger,
    config: {
      publicUrl: ISSUER,
      tokenTtlSeconds: 3600,
      trustProxy: false,
      ...(adminToken === undefined ? {} : { adminToken }),
      ...(journalSize === undefined ? {} : { journalSize }),
    },
  });

for (const backend of await backends()) {
  describeBackend(`admin API (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let clock: TestClock;
    let larder: LarderApp;
    before(async () => {
      db = await backend.create();
      for (const id of ['loc-1', 'loc-2']) await db.store.locations.upsert({ id });
      clock = createTestClock(T0);
      larder = await build(db, clock, ADMIN);
    });
    after(() => db.destroy());

    const { admin, json } = adminRequests(() => larder.app, ADMIN);
    const login = async (clientId: string, clientSecret: string, app = larder.app) =>
      app.request(LOGIN, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
      });
    const accessToken = async (clientId: string, clientSecret: string) =>
      (await json<{ token: { accessToken: string } }>(login(clientId, clientSecret))).token.accessToken;
    const search = (token: string, location = 'loc-1', pageSize = '5') =>
      larder.app.request(`/v1/purchaseOrders/search?pageSize=${pageSize}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': location,
          'content-type': 'application/json',
        },
        body: '{}',
      });

    test('without an admin token every /_larder/ path is a 404, as if it did not exist', async () => {
      const plain = await build(db, clock);
      for (const path of ['/_larder/clock', '/_larder/requests', '/_larder/nothing', '/_larder/clok']) {
        const response = await plain.app.request(path, { headers: { authorization: `Bearer ${ADMIN}` } });
        assert.equal(response.status, 404);
        const body = await json(response);
        assert.equal(body['code'], 40402);
        // Not even a "did you mean" hints at it.
        assert.equal(body['message'], 'No such endpoint.');
      }
      assert.equal(plain.journal, undefined);
    });

    test('with the admin API on, a mistyped admin path is told the one it most likely meant', async () => {
      const body = await json(admin('GET', '/clok'));
      assert.equal(body['code'], 40402);
      assert.equal(body['message'], 'No such endpoint. Did you mean GET, PUT, DELETE /_larder/clock?');
    });

    test('a missing or wrong token is a 401 ErrorMessage; a retail token never opens it', async () => {
      const missing = await larder.app.request('/_larder/clock');
      assert.equal(missing.status, 401);
      const body = await json(missing);
      assert.equal(body['code'], 40103);
      assert.equal(typeof body['requestId'], 'string');
      assert.equal((await admin('GET', '/clock', undefined, `${ADMIN}x`)).status, 401);
      const client = await createClientCredentials(db.store, { name: 'c', allLocations: true }, clock);
      const retail = await accessToken(client.clientId, client.clientSecret);
      assert.equal((await admin('GET', '/clock', undefined, retail)).status, 401);
    });

    test('the admin token never opens retail', async () => {
      const response = await search(ADMIN);
      assert.equal(response.status, 401);
    });

    test('the clock: show, set (frozen), advance, reset', async () => {
      assert.deepEqual(await json(admin('GET', '/clock')), {
        now: new Date(T0).toISOString(),
        offsetSeconds: 0,
        frozen: false,
      });
      const frozen = await json(admin('PUT', '/clock', { now: '2025-01-01T00:00:00Z', frozen: true }));
      assert.equal(frozen['now'], '2025-01-01T00:00:00.000Z');
      assert.equal(frozen['frozen'], true);
      clock.advance(60_000);
      assert.equal((await json(admin('GET', '/clock')))['now'], '2025-01-01T00:00:00.000Z');
      const advanced = await json(admin('POST', '/clock/advance', { seconds: 90 }));
      assert.equal(advanced['now'], '2025-01-01T00:01:30.000Z');
      const reset = await json(admin('DELETE', '/clock'));
      assert.deepEqual(reset, { now: new Date(clock.now()).toISOString(), offsetSeconds: 0, frozen: false });
    });

    test('PUT /clock takes a day alone as its midnight UTC, as larder clock set and ?since= do', async () => {
      const day = await json(admin('PUT', '/clock', { now: '2026-11-29', frozen: true }));
      assert.equal(day['now'], '2026-11-29T00:00:00.000Z');
      await admin('DELETE', '/clock');
    });

    test('bad clock requests are 400s naming the field', async () => {
      // Neither spelling, nor a day that does not exist: one message naming both forms.
      for (const now of ['yesterday', '2025-02-30', '2025-06-01 09:00:00Z']) {
        const bad = await admin('PUT', '/clock', { now });
        assert.equal(bad.status, 400, now);
        const body = await json(bad);
        assert.equal(body['fieldName'], 'now');
        assert.equal(
          body['message'],
          'now must be a valid date (YYYY-MM-DD) or a valid date-time (RFC 3339 with T and a zone of Z or ±HH:MM, e.g. 2024-05-01T12:00:00Z)',
          now,
        );
      }
      const zero = await json(admin('POST', '/clock/advance', { seconds: 0 }));
      assert.equal(zero['fieldName'], 'seconds');
      // Too far is said in days, as a PUT past the bound is, not as the schema's bare maximum in seconds.
      const far = await json(admin('POST', '/clock/advance', { seconds: 4000 * 86_400 }));
      assert.equal(far['fieldName'], 'seconds');
      assert.match(
        String(far['message']),
        /^seconds \(345600000, 4,000 days\) may be at most 10 years \(3,660 days\)/,
      );
      // A number JSON reads as Infinity is no whole number of seconds, not "∞ days" past the bound.
      const infinite = await json(
        larder.app.request('/_larder/clock/advance', {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: '{"seconds": 1e400}',
        }),
      );
      assert.equal(infinite['fieldName'], 'seconds');
      assert.equal(infinite['message'], 'seconds must be integer');
    });

    test('a query parameter on an endpoint that takes none is a 400 naming it, and nothing is done', async () => {
      const before = await json(admin('GET', '/clock'));
      await admin('POST', '/faults', {
        id: 'kept',
        effect: { type: 'reset' },
        match: { pathPrefix: '/v1/x' },
      });
      // Each would be done without what the parameter asked: a running clock, every entry or rule gone.
      for (const [method, path, body, field] of [
        ['PUT', '/clock?frozen=true', { now: '2025-06-01' }, 'frozen'],
        ['POST', '/clock/advance?seconds=60', { seconds: 1 }, 'seconds'],
        ['DELETE', '/clock?keep=1', undefined, 'keep'],
        ['DELETE', '/requests?clientId=x', undefined, 'clientId'],
        ['DELETE', '/faults?id=kept', undefined, 'id'],
        ['DELETE', '/faults/kept?force=1', undefined, 'force'],
        ['PUT', '/faults?append=1', { rules: [] }, 'append'],
        ['POST', '/faults?when=once', { effect: { type: 'reset' } }, 'when'],
        ['POST', '/clients?scopes=retail:read', { name: 'q', allLocations: true }, 'scopes'],
        ['POST', '/locations/loc-9/purchaseOrders?format=ndjson', [], 'format'],
        ['DELETE', '/locations/loc-2?records=only', undefined, 'records'],
        ['POST', '/reset?keep=clients', undefined, 'keep'],
      ] as const) {
        const refused = await admin(method, path, body);
        assert.equal(refused.status, 400, path);
        const error = await json(refused);
        assert.equal(error['code'], 40006, path);
        assert.equal(error['fieldName'], field, path);
        assert.match(
          String(error['message']),
          new RegExp(`^${field} is not a query parameter here: .* takes none`),
        );
      }
      assert.deepEqual(await json(admin('GET', '/clock')), before);
      assert.deepEqual(
        (await json<{ rules: { id: string }[] }>(admin('GET', '/faults'))).rules.map((rule) => rule.id),
        ['kept'],
      );
      assert.ok(
        (await json<{ locations: { id: string }[] }>(admin('GET', '/locations'))).locations.some(
          (l) => l.id === 'loc-2',
        ),
      );
      await admin('DELETE', '/faults');
    });

    test('a search journals the page size it was asked at; a refused pageSize is left out, not NaN or 0', async () => {
      const client = await createClientCredentials(db.store, { name: 'c', allLocations: true }, clock);
      const token = await accessToken(client.clientId, client.clientSecret);
      larder.journal?.clear();
      for (const pageSize of ['abc', '', '1e2', '0100']) await search(token, 'loc-1', pageSize);
      assert.deepEqual(
        (larder.journal?.list() ?? []).map((entry) => [entry.status, entry.pageSize]),
        [
          [400, undefined],
          [400, undefined],
          [400, undefined],
          [200, 100],
        ],
      );
    });

    test('advancing the clock past the token lifetime expires tokens: 401', async () => {
      const client = await createClientCredentials(db.store, { name: 'c', allLocations: true }, clock);
      const token = await accessToken(client.clientId, client.clientSecret);
      assert.equal((await search(token)).status, 200);
      await admin('POST', '/clock/advance', { seconds: 3600 + 120 });
      const expired = await search(token);
      assert.equal(expired.status, 401);
      assert.match(expired.headers.get('www-authenticate') ?? '', /expired/);
      await admin('DELETE', '/clock');
      assert.equal((await search(token)).status, 200);
    });

    test('moved backwards, a token issued in the virtual future is not yet valid; 1 s of leeway', async () => {
      const client = await createClientCredentials(db.store, { name: 'c', allLocations: true }, clock);
      const token = await accessToken(client.clientId, client.clientSecret);
      const issuedAt = Math.floor(clock.now() / 1000) * 1000;
      await admin('PUT', '/clock', { now: new Date(issuedAt - 1000).toISOString(), frozen: true });
      assert.equal((await search(token)).status, 200, 'within the leeway');
      await admin('PUT', '/clock', { now: new Date(issuedAt - 3_600_000).toISOString(), frozen: true });
      const early = await search(token);
      assert.equal(early.status, 401);
      assert.match(early.headers.get('www-authenticate') ?? '', /not yet valid/);
      await admin('DELETE', '/clock');
      assert.equal((await search(token)).status, 200);
    });

    test('a second instance on the same store takes up the clock on its next sync', async () => {
      const other = await build(db, clock, ADMIN);
      await admin('PUT', '/clock', { now: '2030-06-01T00:00:00Z', frozen: true });
      await other.app.request('/healthz');
      const stop = other.start();
      await stop();
      await (other.clock as unknown as { sync(): Promise<void> }).sync();
      assert.equal(new Date(other.clock.now()).toISOString(), '2030-06-01T00:00:00.000Z');
      await admin('DELETE', '/clock');
    });

    test('POST /clients answers the secret once, and it logs in', async () => {
      const created = await admin('POST', '/clients', { name: 'fixture client', locations: ['loc-9'] });
      assert.equal(created.status, 201);
      const client = await json<{ clientId: string; clientSecret: string; locations: string[] }>(created);
      assert.deepEqual(client.locations, ['loc-9']);
      assert.equal((await login(client.clientId, client.clientSecret)).status, 200);
      const invalid = await admin('POST', '/clients', { name: 'x', scopes: 'retail:write' });
      assert.equal(invalid.status, 400);
      // Scopes as a list too, the form the answer shows.
      for (const scopes of ['retail:read retail.inventory:read', ['retail:read', 'retail.inventory:read']]) {
        const listed = await json<{ scopes: string[] }>(
          admin('POST', '/clients', { name: 'scoped', allLocations: true, scopes }),
        );
        assert.deepEqual([...listed.scopes].sort(), ['retail.inventory:read', 'retail:read']);
      }
      assert.equal(
        (await admin('POST', '/clients', { name: 'x', allLocations: true, scopes: [7] })).status,
        400,
      );
    });

    describe('the request journal', () => {
      test('--journal-size 0 turns it off: listing and the report say so (409), clearing and the rest work', async () => {
        const off = await build(db, clock, ADMIN, 0);
        assert.equal(off.journal, undefined);
        const offAdmin = adminRequests(() => off.app, ADMIN);
        const client = await createClientCredentials(db.store, { name: 'off', locations: ['loc-1'] }, clock);
        assert.equal((await login(client.clientId, client.clientSecret, off.app)).status, 200);
        for (const path of ['/requests', `/report?clientId=${client.clientId}`]) {
          const response = await offAdmin.admin('GET', path);
          assert.equal(response.status, 409, path);
          const body = await json(response);
          assert.equal(body['code'], 40902);
          assert.match(String(body['message']), /journal is off \(--journal-size 0\)/);
          assert.equal(typeof body['requestId'], 'string');
        }
        const cleared = await offAdmin.admin('DELETE', '/requests');
        assert.equal(cleared.status, 200);
        assert.deepEqual(await json(cleared), { cleared: true, recording: false });
        assert.equal((await offAdmin.admin('GET', '/clock')).status, 200);
      });

      test('a journal that wrapped says how many entries it dropped, in the listing and in the report', async () => {
        const small = await build(db, clock, ADMIN, 2);
        const smallAdmin = adminRequests(() => small.app, ADMIN);
        const client = await createClientCredentials(db.store, { name: 'wrap', locations: ['loc-1'] }, clock);
        const read = async (path: string) => smallAdmin.json(smallAdmin.admin('GET', path));
        const report = `/report?clientId=${client.clientId}`;
        await login(client.clientId, client.clientSecret, small.app);
        assert.equal((await read('/requests'))['dropped'], 0);
        assert.equal((await read(report))['dropped'], 0);
        for (let i = 0; i < 4; i++) await small.app.request('/.well-known/jwks.json');
        const listed = await read('/requests');
        assert.equal((listed['requests'] as unknown[]).length, 2);
        assert.equal(listed['dropped'], 3);
        // The client's own login was dropped: judged nothing, and told why.
        const judged = await read(report);
        assert.equal(judged['requestsJudged'], 0);
        assert.equal(judged['dropped'], 3);
        assert.equal((await smallAdmin.admin('DELETE', '/requests')).status, 200);
        assert.equal((await read('/requests'))['dropped'], 0);
      });

      test('after lists only what was recorded since the listing that answered next, and counts what it missed', async () => {
        const small = await build(db, clock, ADMIN, 3);
        const smallAdmin = adminRequests(() => small.app, ADMIN);
        const read = async (path: string) =>
          smallAdmin.json<{ requests: { path: string }[]; next: string; missed?: number }>(
            smallAdmin.admin('GET', path),
          );
        const hit = (n: number) => small.app.request(`/v1/nothing-${n}`);
        await hit(1);
        // next marks where the journal stood, whatever the filter or limit: not the last entry listed.
        const first = await read('/requests?limit=0');
        assert.deepEqual([first.requests, first.next, first.missed], [[], '0:1', undefined]);
        await hit(2);
        await hit(3);
        const second = await read(`/requests?after=${first.next}`);
        assert.deepEqual(
          second.requests.map((entry) => entry.path),
          ['/v1/nothing-2', '/v1/nothing-3'],
        );
        assert.deepEqual([second.next, second.missed], ['0:3', 0]);
        // Four more into a ring of three: the first of them left before it could be listed.
        for (let n = 4; n <= 7; n++) await hit(n);
        const third = await read(`/requests?after=${second.next}`);
        assert.deepEqual(
          third.requests.map((entry) => entry.path),
          ['/v1/nothing-5', '/v1/nothing-6', '/v1/nothing-7'],
        );
        assert.deepEqual([third.next, third.missed], ['0:7', 1]);
        // What a clear removed was not missed.
        await hit(8);
        await smallAdmin.admin('DELETE', '/requests');
        await hit(9);
        const fourth = await read(`/requests?after=${third.next}`);
        assert.deepEqual([fourth.requests.map((entry) => entry.path), fourth.missed], [['/v1/nothing-9'], 0]);
        for (const after of ['7', '0:x', '0:1,']) {
          const refused = await smallAdmin.admin('GET', `/requests?after=${after}`);
          assert.equal(refused.status, 400, after);
          assert.equal((await smallAdmin.json(refused))['fieldName'], 'after');
        }
      });

      test('records each request with its operation, client and status; never a secret or token', async () => {
        await admin('DELETE', '/requests');
        const client = await createClientCredentials(db.store, { name: 'j', locations: ['loc-1'] }, clock);
        const token = await accessToken(client.clientId, client.clientSecret);
        assert.equal((await search(token)).status, 200);
        assert.equal((await search(token, 'loc-2')).status, 403);
        await login(client.clientId, 'wrong');
        const { requests } = await json<{ requests: Record<string, unknown>[] }>(
          admin('GET', `/requests?clientId=${client.clientId}`),
        );
        assert.deepEqual(
          requests.map((r) => [r['operation'], r['status'], r['code'] ?? null, r['location'] ?? null]),
          [
            ['authenticationLoginPost', 200, null, null],
            ['searchPurchaseOrders', 200, null, 'loc-1'],
            ['searchPurchaseOrders', 403, 40302, 'loc-2'],
            ['authenticationLoginPost', 401, 40102, null],
          ],
        );
        assert.deepEqual(requests[1]?.['body'], {});
        assert.equal(requests[1]?.['hasNextPage'], false);
        assert.equal(requests[0]?.['tokenFingerprint'], requests[1]?.['tokenFingerprint']);
        const text = JSON.stringify(requests);
        assert.ok(!text.includes(client.clientSecret), 'no client secret');
        assert.ok(!text.includes(token), 'no access token');
        assert.ok(!text.includes('Bearer'), 'no Authorization value');
      });

      test('filters by operation, status, location, since and limit; DELETE clears it', async () => {
        const list = async (query: string) =>
          (await json<{ requests: { status: number }[] }>(admin('GET', `/requests?${query}`))).requests;
        assert.equal((await list('status=4xx')).length, 2);
        assert.equal((await list('status=403&location=loc-2')).length, 1);
        assert.equal((await list('operation=searchPurchaseOrders&limit=1')).length, 1);
        const all = (await list('')).length;
        assert.equal((await list('limit=1000000')).length, all);
        assert.equal((await list(`limit=${'9'.repeat(400)}`)).length, all);
        assert.equal((await list(`since=${new Date(clock.now() + 3_600_000).toISOString()}`)).length, 0);
        // A day alone is its midnight UTC, as `larder clock set` and `larder pull --since` read one.
        const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        assert.equal((await list(`since=${day(clock.now())}`)).length, all);
        assert.equal((await list(`since=${day(clock.now() + 86_400_000)}`)).length, 0);
        const bad = await admin('GET', '/requests?limit=lots');
        assert.equal(bad.status, 400);
        assert.equal((await json(bad))['fieldName'], 'limit');
        // since reads date-times as records do (and only real days): one an import would refuse is a 400, not a
        // filter matching all.
        for (const since of [
          '2025-01-01T99:99:99Z',
          '2025-01-01t12:00:00z',
          '2025-01-01T12:00:00+0500',
          '2025-02-30',
          '2025-6-1',
        ]) {
          const refused = await admin('GET', `/requests?since=${encodeURIComponent(since)}`);
          assert.equal(refused.status, 400, since);
          assert.equal((await json(refused))['fieldName'], 'since');
        }
        // A misspelt filter or operation id is told, not ignored (it would list everything, or nothing).
        for (const [query, field, meant] of [
          ['client=nobody', 'client', 'clientId'],
          ['clientid=nobody', 'clientid', 'clientId'],
          ['operation=searchPurchaseOrder', 'operation', 'searchPurchaseOrders'],
        ] as const) {
          const refused = await json(admin('GET', `/requests?${query}`));
          assert.equal(refused['code'], 40006, query);
          assert.equal(refused['fieldName'], field);
          assert.match(String(refused['message']), new RegExp(`did you mean ${meant}\\?`));
        }
        // So is one given empty (`?clientId=$CLIENT` with the variable unset): taken as absent, it would list
        // everything, as the report, the CLI and @larder/client refuse it.
        for (const field of ['clientId', 'location', 'operation', 'status', 'since', 'limit', 'after']) {
          const refused = await admin('GET', `/requests?${field}=`);
          assert.equal(refused.status, 400, field);
          const body = await json(refused);
          assert.equal(body['code'], 40006, field);
          assert.equal(body['fieldName'], field);
          assert.match(String(body['message']), new RegExp(`^${field} is empty`));
        }
        const report = await json(admin('GET', '/report?clientId=x&client=y'));
        assert.equal(report['fieldName'], 'client');
        // A filter given twice is refused too: taking the first would quietly drop the second.
        const twice = await json(admin('GET', '/requests?status=4xx&status=5xx'));
        assert.equal(twice['code'], 40006);
        assert.equal(twice['fieldName'], 'status');
        assert.match(String(twice['message']), /status is given 2 times/);
        await admin('DELETE', '/requests');
        assert.equal((await list('')).length, 0);
      });

      test('a claimed client id of another shape than a client id (a pasted secret) is never journaled as sent', async () => {
        await admin('DELETE', '/requests');
        const secret = 'kQ3v9x-PasteD_SecreT_0123456789abcdefghijklm';
        assert.equal((await login(secret, 'whatever')).status, 401);
        const client = await createClientCredentials(
          db.store,
          { name: 'shape', locations: ['loc-1'] },
          clock,
        );
        assert.equal((await login(client.clientId, 'wrong')).status, 401);
        const { requests } = await json<{ requests: Record<string, unknown>[] }>(admin('GET', '/requests'));
        assert.deepEqual(
          requests.map((r) => r['clientId']),
          ['(not a client id)', client.clientId],
        );
        assert.ok(!JSON.stringify(requests).includes(secret));
      });

      test('nor when a rate limit, a fault or a refused token names it before any credential check', async () => {
        const secret = 'kQ3v9x-PasteD_SecreT_0123456789abcdefghijklm';
        const lines: string[] = [];
        const limited = await createApp({
          store: db.store,
          clock,
          logger: createJsonLogger({ write: (line) => lines.push(line) }, clock),
          config: {
            publicUrl: ISSUER,
            tokenTtlSeconds: 3600,
            trustProxy: false,
            adminToken: ADMIN,
            rateLimit: [{ limit: 1, windowMs: 1000 }],
          },
        });
        const { admin: limitedAdmin } = adminRequests(() => limited.app, ADMIN);
        // Id and secret swapped in the Basic credentials: the id position holds the secret.
        const swapped = () =>
          limited.app.request(TOKEN, {
            method: 'POST',
            headers: {
              authorization: `Basic ${Buffer.from(`${secret}:x`).toString('base64')}`,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: 'grant_type=client_credentials',
          });
        assert.equal((await swapped()).status, 401);
        assert.equal((await swapped()).status, 429);
        clock.advance(1000);
        await limitedAdmin('PUT', '/faults', {
          rules: [{ match: { operation: 'oauthToken' }, effect: { type: 'status', status: 503 } }],
        });
        assert.equal((await swapped()).status, 503);
        await limitedAdmin('DELETE', '/faults');
        clock.advance(1000);
        const claims = Buffer.from(JSON.stringify({ client_id: secret })).toString('base64url');
        const forged = await limited.app.request('/v1/purchaseOrders/search', {
          method: 'POST',
          headers: {
            authorization: `Bearer eyJhbGciOiJFUzI1NiJ9.${claims}.c2ln`,
            'platform-restaurant-external-id': 'loc-1',
            'content-type': 'application/json',
          },
          body: '{}',
        });
        assert.equal(forged.status, 401);
        const { requests } = await json<{ requests: Record<string, unknown>[] }>(
          limitedAdmin('GET', '/requests'),
        );
        assert.deepEqual(
          requests.map((r) => [r['status'], r['clientId']]),
          [
            [401, '(not a client id)'],
            [429, '(not a client id)'],
            [503, '(not a client id)'],
            [401, '(not a client id)'],
          ],
        );
        assert.ok(!JSON.stringify(requests).includes(secret));
        assert.ok(lines.some((line) => line.includes('"status":429')));
        assert.ok(!lines.join('').includes(secret));
      });

      test("Larder's own pages and probes are left out of the journal; an unknown path is kept", async () => {
        await admin('DELETE', '/requests');
        for (const path of [
          '/docs',
          '/docs/assets/x.js',
          '/openapi.json',
          '/healthz',
          '/readyz',
          '/favicon.ico',
        ])
          await larder.app.request(path);
        await larder.app.request('/v1/nothing');
        const { requests } = await json<{ requests: Record<string, unknown>[] }>(admin('GET', '/requests'));
        assert.deepEqual(
          requests.map((r) => r['path']),
          ['/v1/nothing'],
        );
      });

      test("a client's requests that no route took (a mistyped path, a wrong method) are journaled under its id", async () => {
        await admin('DELETE', '/requests');
        const client = await createClientCredentials(db.store, { name: 'typo', locations: ['loc-1'] }, clock);
        const token = await accessToken(client.clientId, client.clientSecret);
        const headers = { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': 'loc-1' };
        await larder.app.request('/v1/purchaseOrder/search', { method: 'POST', headers, body: '{}' });
        await larder.app.request('/v1/purchaseOrders/search', { headers });
        const { requests } = await json<{ requests: Record<string, unknown>[] }>(
          admin('GET', `/requests?clientId=${client.clientId}&status=4xx`),
        );
        assert.deepEqual(
          requests.map((r) => [r['path'], r['status'], r['code']]),
          [
            ['/v1/purchaseOrder/search', 404, 40402],
            ['/v1/purchaseOrders/search', 405, 40501],
          ],
        );
      });
    });
  });
}
