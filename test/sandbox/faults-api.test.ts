import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { type AppConfig, createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock, type TestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const ADMIN = 'admin-secret-token';
const LOGIN = '/authentication/v1/authentication/login';
const T0 = Date.UTC(2025, 2, 10, 9);

/** The README's example: every tenth inventory search answers 503. */
const EVERY_TENTH_SEARCH = {
  rules: [
    {
      id: 'tenth-search',
      match: { operation: 'searchInventoryHistory' },
      when: { every: 10 },
      effect: { type: 'status', status: 503 },
    },
  ],
};

for (const backend of await backends()) {
  describeBackend(`fault rules through the admin API (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let clock: TestClock;
    let credentials: { clientId: string; clientSecret: string };
    const build = (config: Partial<AppConfig> = {}) =>
      createApp({
        store: db.store,
        clock,
        logger: silentLogger,
        config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false, ...config },
      });
    let larder: LarderApp;
    let token: string;

    before(async () => {
      db = await backend.create();
      await db.store.locations.upsert({ id: 'loc-1' });
      clock = createTestClock(T0);
      credentials = await createClientCredentials(db.store, { name: 'c', allLocations: true }, clock);
      larder = await build({ adminToken: ADMIN });
      token = await accessToken(larder);
    });
    after(() => db.destroy());

    const admin = (method: string, body?: unknown, auth = ADMIN, path = '/_larder/faults') =>
      larder.app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${auth}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const accessToken = async (app: LarderApp) => {
      const response = await app.app.request(LOGIN, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          userAccessType: 'PLATFORM_MACHINE_CLIENT',
        }),
      });
      return ((await response.json()) as { token: { accessToken: string } }).token.accessToken;
    };
    const search = (app: LarderApp = larder, headers: Record<string, string> = {}, query = '') =>
      app.app.request(`/v1/inventoryHistory/search${query}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': 'loc-1',
          'content-type': 'application/json',
          ...headers,
        },
        body: '{}',
      });

    test('GET, PUT and DELETE /_larder/faults show, replace and clear the rules with their counters', async () => {
      assert.deepEqual(await (await admin('GET')).json(), { rules: [] });
      const put = await admin('PUT', {
        rules: [{ effect: { type: 'latency', ms: 0 } }, ...EVERY_TENTH_SEARCH.rules],
      });
      assert.equal(put.status, 200);
      const state = (await put.json()) as { rules: { id: string; matched: number; applied: number }[] };
      assert.deepEqual(
        state.rules.map(({ id, matched, applied }) => ({ id, matched, applied })),
        [
          { id: 'rule-1', matched: 0, applied: 0 },
          { id: 'tenth-search', matched: 0, applied: 0 },
        ],
      );
      await search();
      const shown = (await (await admin('GET')).json()) as { rules: { matched: number }[] };
      assert.deepEqual(
        shown.rules.map((rule) => rule.matched),
        [1, 1],
      );
      assert.deepEqual(await (await admin('DELETE')).json(), { rules: [] });
      assert.equal((await admin('GET', undefined, 'wrong-token-wrong-token')).status, 401);
    });

    test('POST adds one rule and DELETE …/{ruleId} removes one, the others keeping their counters', async () => {
      type State = { rules: { id: string; matched: number }[] };
      const counters = async (response: Response | Promise<Response>) =>
        ((await (await response).json()) as State).rules.map(({ id, matched }) => `${id}:${matched}`);
      await admin('PUT', EVERY_TENTH_SEARCH);
      await search();
      const added = await admin('POST', { effect: { type: 'latency', ms: 0 } });
      assert.equal(added.status, 201);
      assert.deepEqual(await counters(added), ['tenth-search:1', 'rule-2:0']);
      await search();
      assert.deepEqual(await counters(admin('POST', { id: 'slow', effect: { type: 'latency', ms: 0 } })), [
        'tenth-search:2',
        'rule-2:1',
        'slow:0',
      ]);
      // An id in use is a 409, and nothing changes.
      const twice = await admin('POST', { id: 'slow', effect: { type: 'reset' } });
      assert.equal(twice.status, 409);
      assert.equal(((await twice.json()) as { fieldName: string }).fieldName, 'id');
      // A bad rule is a 400 naming its field (no `rules[0].` prefix: the body is the rule).
      const bad = await admin('POST', { effect: { type: 'status', status: 500, retryAfterSeconds: 2 } });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { fieldName: string }).fieldName, 'effect.retryAfterSeconds');
      const removed = await admin('DELETE', undefined, ADMIN, '/_larder/faults/rule-2');
      assert.equal(removed.status, 200);
      assert.deepEqual(await counters(removed), ['tenth-search:2', 'slow:0']);
      // The next default id is the next free number.
      assert.deepEqual(
        await counters(admin('POST', { effect: { type: 'reset' }, match: { pathPrefix: '/nowhere' } })),
        ['tenth-search:2', 'slow:0', 'rule-3:0'],
      );
      const unknown = await admin('DELETE', undefined, ADMIN, '/_larder/faults/rule-9');
      assert.equal(unknown.status, 404);
      assert.match(((await unknown.json()) as { message: string }).message, /No fault rule rule-9/);
      await admin('DELETE');
    });

    test('a rule that could never fire, or contradicts itself, is a 400 naming the field', async () => {
      const cases: [unknown, string, RegExp][] = [
        [{ effect: { type: 'reset' }, match: { method: 'FETCH' } }, 'match.method', /GET, HEAD, POST/],
        [{ effect: { type: 'reset' }, match: { pathPrefix: '/_larder/' } }, 'match.pathPrefix', /admin API/],
        [{ effect: { type: 'reset' }, when: { probability: 0 } }, 'when.probability', /must be > 0/],
        // A misspelt operation id or effect is told the one it most likely meant.
        [
          { effect: { type: 'reset' }, match: { operation: 'searchPurchaseOrder' } },
          'match.operation',
          /must be one of .* \(did you mean searchPurchaseOrders\?\)$/,
        ],
        [{ effect: { type: 'rest' } }, 'effect.type', /\(did you mean reset\?\)$/],
        ...['/healthz', '/readyz', '/docs', '/docs/assets', '/console', '/openapi.json'].map(
          (pathPrefix): [unknown, string, RegExp] => [
            { effect: { type: 'reset' }, match: { pathPrefix } },
            'match.pathPrefix',
            /is Larder's own .* never faulted/,
          ],
        ),
        [{ effect: { type: 'status', status: 503, ms: 5 } }, 'effect.ms', /only to type latency/],
        [
          { effect: { type: 'reset', bytesPerSecond: 100 } },
          'effect.bytesPerSecond',
          /only to type slowBody/,
        ],
        [
          { effect: { type: 'latency', ms: 5, distribution: 'uniform', minMs: 1, maxMs: 9 } },
          'effect.ms',
          /only to distribution fixed \(this one is uniform\)/,
        ],
        [{ effect: { type: 'latency', ms: 5, sigma: 1 } }, 'effect.sigma', /only to distribution logNormal/],
        // A bad page token only ever answers a search; an invalid token only the retail API.
        [
          { effect: { type: 'badPageToken' }, match: { operation: 'getPurchaseOrderById' } },
          'match.operation',
          /must be a search \(searchPurchaseOrders, searchInventoryHistory\).*never fire/,
        ],
        [{ effect: { type: 'badPageToken' }, match: { method: 'GET' } }, 'match.method', /must be POST/],
        [
          { effect: { type: 'badPageToken' }, match: { pathPrefix: '/v1/purchaseOrders/0' } },
          'match.pathPrefix',
          /search path/,
        ],
        [
          { effect: { type: 'invalidToken' }, match: { operation: 'authenticationLoginPost' } },
          'match.operation',
          /retail/,
        ],
        [
          { effect: { type: 'invalidToken' }, match: { pathPrefix: '/authentication' } },
          'match.pathPrefix',
          /retail/,
        ],
        // A login names its client in its JSON body, which the rules never read: clientId cannot aim at logins.
        ...[
          { operation: 'authenticationLoginPost' },
          { pathPrefix: '/authentication/v1/authentication/login' },
        ].map((match): [unknown, string, RegExp] => [
          { effect: { type: 'status', status: 503 }, match: { ...match, clientId: 'some-client' } },
          'match.clientId',
          /never matches a login.*operation or pathPrefix/,
        ]),
      ];
      for (const [rule, field, message] of cases) {
        const added = await admin('POST', rule);
        assert.equal(added.status, 400, field);
        const error = (await added.json()) as { fieldName?: string; message: string };
        assert.equal(error.fieldName, field, error.message);
        assert.match(error.message, message);
        const replaced = (await (await admin('PUT', { rules: [rule] })).json()) as { fieldName?: string };
        assert.equal(replaced.fieldName, `rules[0].${field}`);
      }
      // What still fires: a method in any case, latency with its own distribution's fields.
      for (const rule of [
        { effect: { type: 'reset' }, match: { method: 'head', pathPrefix: '/v1/' } },
        { effect: { type: 'latency', distribution: 'fixed', ms: 5 } },
        { effect: { type: 'latency', distribution: 'logNormal', medianMs: 5, sigma: 1 } },
        { effect: { type: 'status', status: 429, retryAfterSeconds: 2 } },
        { effect: { type: 'badPageToken' }, match: { operation: 'searchPurchaseOrders', method: 'post' } },
        { effect: { type: 'badPageToken' }, match: { pathPrefix: '/v1/' } },
        { effect: { type: 'invalidToken' }, match: { operation: 'getPurchaseOrderById', pathPrefix: '/v' } },
        // The token endpoint's Basic credentials name its client; a prefix of both token paths reaches it.
        { effect: { type: 'reset' }, match: { operation: 'oauthToken', clientId: 'some-client' } },
        { effect: { type: 'reset' }, match: { pathPrefix: '/authentication/', clientId: 'some-client' } },
      ])
        assert.equal((await admin('PUT', { rules: [rule] })).status, 200, JSON.stringify(rule));
      await admin('DELETE');
    });

    test('a bad rule is a 400 naming the field, and the rules in force stay', async () => {
      await admin('PUT', EVERY_TENTH_SEARCH);
      const cases: [unknown, string][] = [
        [{ rules: [{ effect: { type: 'status' } }] }, 'rules[0].effect.status'],
        [{ rules: [{ effect: { type: 'explode' } }] }, 'rules[0].effect.type'],
        [{ rules: [{ effect: { type: 'status', status: 418 } }] }, 'rules[0].effect.status'],
        [{ rules: [{ effect: { type: 'slowBody' } }] }, 'rules[0].effect.bytesPerSecond'],
        [
          { rules: [{ effect: { type: 'latency', distribution: 'uniform', minMs: 5, maxMs: 1 } }] },
          'rules[0].effect.maxMs',
        ],
        [{ rules: [{ effect: { type: 'reset' }, when: { every: 2, next: 1 } }] }, 'rules[0].when'],
        [{ rules: [{ effect: { type: 'reset' }, when: { probability: 2 } }] }, 'rules[0].when.probability'],
        [{ rules: [{ effect: { type: 'reset' }, match: { colour: 'red' } }] }, 'rules[0].match.colour'],
        // A misspelt operation id would make a rule that never fires.
        [
          { rules: [{ effect: { type: 'reset' }, match: { operation: 'searchPurchaseOrder' } }] },
          'rules[0].match.operation',
        ],
        [
          { rules: [{ effect: { type: 'reset' }, match: { pathPrefix: 'v1' } }] },
          'rules[0].match.pathPrefix',
        ],
        [
          { rules: [{ effect: { type: 'status', status: 500, retryAfterSeconds: 2 } }] },
          'rules[0].effect.retryAfterSeconds',
        ],
        [{}, 'rules'],
      ];
      for (const [body, field] of cases) {
        const response = await admin('PUT', body);
        assert.equal(response.status, 400, field);
        const error = (await response.json()) as { fieldName?: string; message: string };
        assert.equal(error.fieldName, field, error.message);
      }
      // One rule sent where the document goes, or the document where one rule goes, is told as that.
      const rule = { effect: { type: 'reset' } };
      for (const [method, body, field, said] of [
        [
          'PUT',
          rule,
          'rules',
          /^rules is required: this is one rule \(\{"effect": …\}\), not a \{"rules": \[…\]\} document/,
        ],
        [
          'POST',
          { rules: [rule] },
          'effect',
          /^effect is required: this is a \{"rules": \[…\]\} document, not one rule/,
        ],
      ] as const) {
        const response = await admin(method, body);
        assert.equal(response.status, 400, method);
        const error = (await response.json()) as { fieldName?: string; message: string };
        assert.equal(error.fieldName, field, error.message);
        assert.match(error.message, said);
      }
      const rules = ((await (await admin('GET')).json()) as { rules: { id: string }[] }).rules;
      assert.deepEqual(
        rules.map((rule) => rule.id),
        ['tenth-search'],
      );
      await admin('DELETE');
    });

    test("a catch-all rule faults the API but never Larder's own pages: docs, OpenAPI document, console, probes", async () => {
      await admin('PUT', { rules: [{ effect: { type: 'status', status: 500 } }] });
      for (const path of ['/docs', '/openapi.json', '/console/', '/healthz', '/readyz'])
        assert.equal((await larder.app.request(path)).status, 200, path);
      assert.equal((await larder.app.request('/favicon.ico')).status, 404);
      assert.equal((await search()).status, 500);
      assert.equal((await larder.app.request('/.well-known/openid-configuration')).status, 500);
      await admin('DELETE');
    });

    test('every tenth inventory search answers 503, marked in the journal', async () => {
      await admin('PUT', EVERY_TENTH_SEARCH);
      larder.journal?.clear();
      const seen: number[] = [];
      for (let i = 0; i < 20; i++) seen.push((await search()).status);
      assert.deepEqual(
        seen.flatMap((status, i) => (status === 503 ? [i + 1] : [])),
        [10, 20],
      );
      assert.ok(seen.every((status) => status === 200 || status === 503));
      const entries = larder.journal?.list({ status: '503' }) ?? [];
      assert.deepEqual(
        entries.map((entry) => [entry.fault, entry.code, entry.clientId]),
        [
          ['tenth-search status=503', 50301, credentials.clientId],
          ['tenth-search status=503', 50301, credentials.clientId],
        ],
      );
      await admin('DELETE');
    });

    const findings = async () =>
      (
        (await (
          await larder.app.request(`/_larder/report?clientId=${credentials.clientId}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()) as { findings: { rule: string; count: number }[] }
      ).findings.map((f) => `${f.rule}:${f.count}`);

    test('a search answered by a fault is journaled as sent, so the report knows a retry of it', async () => {
      await admin('PUT', {
        rules: [
          {
            match: { operation: 'searchInventoryHistory' },
            when: { next: 1 },
            effect: { type: 'status', status: 503 },
          },
        ],
      });
      larder.journal?.clear();
      const body = { updatedDateRange: { startDate: '2025-03-01' } };
      const paged = () =>
        larder.app.request('/v1/inventoryHistory/search?pageSize=10', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'platform-restaurant-external-id': 'loc-1',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
      const seen: number[] = [];
      for (let i = 0; i < 2; i++) {
        seen.push((await paged()).status);
        clock.advance(100);
      }
      assert.deepEqual(seen, [503, 200]);
      const [faulted, answered] = larder.journal?.list() ?? [];
      assert.ok(answered !== undefined && faulted !== undefined);
      assert.deepEqual(
        [faulted.body, faulted.pageSize, faulted.tokenFingerprint],
        [body, 10, answered.tokenFingerprint],
      );
      assert.deepEqual(await findings(), ['server-error-retried-at-once:1']);
      await admin('DELETE');
    });

    test('the same search refused three times by an injected 4xx is a repeated failing request', async () => {
      await admin('PUT', {
        rules: [{ match: { operation: 'searchInventoryHistory' }, effect: { type: 'badPageToken' } }],
      });
      larder.journal?.clear();
      for (let i = 0; i < 3; i++) {
        assert.equal((await search(larder, {}, '?pageToken=not-a-page')).status, 400);
        clock.advance(2_000);
      }
      assert.deepEqual(await findings(), ['repeated-failing-request:1']);
      await admin('DELETE');
    });

    test('badPageToken faults searches only: a get by id with a pageToken answers as ever', async () => {
      await admin('PUT', { rules: [{ effect: { type: 'badPageToken' } }] });
      const get = await larder.app.request(
        '/v1/inventoryHistory/00000000-0000-4000-8000-000000000000?pageToken=x',
        { headers: { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': 'loc-1' } },
      );
      assert.equal(get.status, 404);
      assert.equal(((await get.json()) as { code: number }).code, 40401);
      const searched = await search(larder, {}, '?pageToken=x');
      assert.equal(((await searched.json()) as { code: number }).code, 40005);
      const [rule] = ((await (await admin('GET')).json()) as { rules: { matched: number }[] }).rules;
      assert.equal(rule?.matched, 1);
      await admin('DELETE');
    });

    test('the report counts a retry before the Retry-After of an injected 429 like a real one', async () => {
      await admin('PUT', {
        rules: [{ when: { next: 1 }, effect: { type: 'status', status: 429, retryAfterSeconds: 30 } }],
      });
      larder.journal?.clear();
      assert.equal((await search()).status, 429);
      clock.advance(5_000);
      assert.equal((await search()).status, 200);
      const report = (await (
        await larder.app.request(`/_larder/report?clientId=${credentials.clientId}`, {
          headers: { authorization: `Bearer ${ADMIN}` },
        })
      ).json()) as { findings: { rule: string; count: number }[] };
      assert.deepEqual(
        report.findings.filter((f) => f.rule === 'retry-before-retry-after').map((f) => f.count),
        [1],
      );
      await admin('DELETE');
    });

    test('on a frozen clock, a retry after advancing it by exactly Retry-After is not early', async () => {
      const headed = await build({ adminToken: ADMIN, allowFaultHeader: true });
      const control = (method: string, path: string, body: unknown) =>
        headed.app.request(`/_larder${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal(
        (await control('PUT', '/clock', { now: new Date(T0 + 600_000).toISOString(), frozen: true })).status,
        200,
      );
      headed.journal?.clear();
      assert.equal((await search(headed, { 'larder-fault': 'status=429;retry-after=2' })).status, 429);
      assert.equal((await control('POST', '/clock/advance', { seconds: 2 })).status, 200);
      assert.equal((await search(headed)).status, 200);
      const report = (await (
        await headed.app.request(`/_larder/report?clientId=${credentials.clientId}`, {
          headers: { authorization: `Bearer ${ADMIN}` },
        })
      ).json()) as { requestsJudged: number; findings: unknown[] };
      assert.deepEqual([report.requestsJudged, report.findings], [2, []]);
      await headed.app.request('/_larder/clock', {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN}` },
      });
    });

    test('a production-style start injects nothing: no admin API, the header ignored', async () => {
      const plain = await build();
      assert.equal((await plain.app.request('/_larder/faults')).status, 404);
      const response = await search(plain, { 'larder-fault': 'status=503' });
      assert.equal(response.status, 200);
    });

    test('rules from a faults file apply without the admin API, which stays off', async () => {
      const filed = await build({ faults: EVERY_TENTH_SEARCH.rules as AppConfig['faults'] & object });
      assert.equal((await filed.app.request('/_larder/faults')).status, 404);
      const seen: number[] = [];
      for (let i = 0; i < 10; i++) seen.push((await search(filed, { 'larder-fault': 'status=500' })).status);
      assert.deepEqual(seen, [200, 200, 200, 200, 200, 200, 200, 200, 200, 503]);
    });

    test('--allow-fault-header alone honours the header, with no admin API', async () => {
      const headed = await build({ allowFaultHeader: true });
      assert.equal((await headed.app.request('/_larder/faults')).status, 404);
      assert.equal((await search(headed, { 'larder-fault': 'status=502' })).status, 502);
      assert.equal((await search(headed)).status, 200);
    });
  });
}
