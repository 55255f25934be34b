import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createContractChecker } from '../../src/middleware/contract/contract.js';
import { createApp } from '../../src/server/app.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { isLarderOwnPath } from '../../src/shared/own-paths.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { runNode } from '../helpers/cli.js';
import { REPO } from '../helpers/repo.js';

const document = openApiDocument('http://larder.test');
const check = createContractChecker(document);
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'r-1', ...headers },
  });
const errorBody = (status: number, code: number) => ({
  status: String(status),
  code,
  message: 'm',
  requestId: 'r-1',
  canRetry: 'false',
});

test('a conforming answer has no problems', async () => {
  assert.deepEqual(await check('GET', '/healthz', json(200, { status: 'ok' })), []);
  assert.deepEqual(await check('GET', '/nowhere', json(404, errorBody(404, 40402))), []);
  assert.deepEqual(
    await check('GET', '/v1/purchaseOrders/search', json(405, errorBody(405, 40501), { allow: 'POST' })),
    [],
  );
  // The token endpoint documents its 405 as an OAuthError: a wrong method there is held to that shape.
  const token = '/authentication/v1/authentication/customer/oauth/token';
  const oauth405 = { error: 'invalid_request', error_description: 'takes POST', requestId: 'r-1' };
  assert.deepEqual(await check('GET', token, json(405, oauth405, { allow: 'POST' })), []);
  assert.equal((await check('GET', token, json(405, errorBody(405, 40501), { allow: 'POST' }))).length, 1);
});

test('drift is named: body, status, headers, content type, undocumented paths', async () => {
  const [body] = await check('GET', '/healthz', json(200, { status: 'fine' }));
  assert.match(body!, /GET \/healthz \(getHealth\): 200 body does not match/);
  const [status] = await check('GET', '/healthz', json(418, {}));
  assert.match(status!, /status 418 is not documented/);
  const noId = new Response('{"status":"ok"}', { headers: { 'content-type': 'application/json' } });
  assert.match((await check('GET', '/healthz', noId))[0]!, /lacks the header X-Request-Id/);
  assert.deepEqual(
    await check('GET', '/healthz', noId, (name) => (name === 'X-Request-Id' ? 'r-2' : undefined)),
    [],
    'a header set on the Node response counts',
  );
  const html = new Response('<p>', { headers: { 'content-type': 'text/html', 'x-request-id': 'r' } });
  assert.match((await check('GET', '/healthz', html))[0]!, /content-type text\/html is not documented/);
  assert.match((await check('GET', '/secret', json(200, {})))[0]!, /no documented path/);
  const retry = json(429, errorBody(429, 42901), { 'retry-after': 'soon' });
  assert.match(
    (await check('POST', '/authentication/v1/authentication/login', retry)).join(),
    /header Retry-After "soon"/,
  );
});

test('a retail error answer may carry only the codes its operation answers with', async () => {
  const search = '/v1/purchaseOrders/search';
  const get = '/v1/inventoryHistory/00000000-0000-4000-8000-000000000000';
  const www = { 'www-authenticate': 'Bearer error="invalid_token"' };
  const retry = { 'retry-after': '1' };
  for (const [method, path, status, code, headers] of [
    ['POST', search, 400, 40005, {}],
    ['POST', search, 401, 40101, www],
    ['POST', search, 404, 40403, {}],
    ['POST', search, 429, 42902, retry],
    ['GET', get, 400, 40004, {}],
    ['GET', get, 404, 40401, {}],
    ['GET', get, 404, 40403, {}],
  ] as const)
    assert.deepEqual(
      await check(method, path, json(status, errorBody(status, code), headers)),
      [],
      `${code}`,
    );
  for (const [method, path, status, code, headers] of [
    // The path id is a get's; a login's or the admin API's 401; a record (not a location) unknown; the login throttle.
    ['POST', search, 400, 40004, {}],
    ['POST', search, 401, 40102, www],
    ['POST', search, 401, 40103, www],
    ['POST', search, 404, 40401, {}],
    ['POST', search, 429, 42901, retry],
    ['GET', get, 400, 40005, {}],
    ['GET', get, 404, 40402, {}],
  ] as const) {
    const problems = await check(method, path, json(status, errorBody(status, code), headers));
    assert.match(problems.join(), /body does not match/, `${method} ${status} ${code}`);
  }
  // A retail 401 always says why in WWW-Authenticate (RFC 6750).
  assert.match(
    (await check('POST', search, json(401, errorBody(401, 40101)))).join(),
    /lacks the header WWW-Authenticate/,
  );
  // A 404 to a method the path does not take (a POST to a mistyped search, …/seach) is no answer of its operations.
  assert.deepEqual(await check('POST', '/v1/purchaseOrders/seach', json(404, errorBody(404, 40402))), []);
});

test('login, admin, metadata and docs answers may carry only the codes their operation answers with', async () => {
  const login = '/authentication/v1/authentication/login';
  const admin = '/_larder/clock';
  const adminGet = '/_larder/locations/loc-1/purchaseOrders/00000000-0000-4000-8000-000000000000';
  const jwks = '/.well-known/jwks.json';
  const adminChallenge = { 'www-authenticate': 'Bearer realm="larder-admin"' };
  const retry = { 'retry-after': '1' };
  for (const [method, path, status, code, headers] of [
    ['POST', login, 400, 40001, {}],
    ['POST', login, 400, 40002, {}],
    ['POST', login, 401, 40102, {}],
    ['POST', login, 429, 42901, retry],
    ['POST', login, 429, 42902, retry],
    ['GET', login, 405, 40501, { allow: 'POST' }],
    ['GET', admin, 401, 40103, adminChallenge],
    ['GET', admin, 404, 40402, {}],
    ['PUT', admin, 400, 40001, {}],
    ['PUT', admin, 415, 41501, {}],
    ['GET', adminGet, 400, 40004, {}],
    ['GET', adminGet, 404, 40401, {}],
    ['GET', adminGet, 404, 40403, {}],
    ['DELETE', '/_larder/faults/rule-9', 404, 40401, {}],
    ['GET', '/_larder/requests', 409, 40902, {}],
    ['GET', jwks, 400, 40001, {}],
    ['GET', jwks, 429, 42902, retry],
    ['GET', '/docs/assets/x.js', 404, 40402, {}],
  ] as const)
    assert.deepEqual(
      await check(method, path, json(status, errorBody(status, code), headers)),
      [],
      `${method} ${path} ${code}`,
    );
  for (const [method, path, status, code, headers] of [
    // A retail token or the admin token at login; the throttle's and a page token's codes where they never apply.
    ['POST', login, 401, 40101, {}],
    ['POST', login, 401, 40103, {}],
    ['POST', login, 400, 40005, {}],
    ['GET', admin, 401, 40101, adminChallenge],
    ['GET', admin, 404, 40401, {}],
    ['GET', admin, 400, 40001, {}],
    ['GET', adminGet, 400, 40005, {}],
    ['GET', jwks, 429, 42901, retry],
  ] as const) {
    const problems = await check(method, path, json(status, errorBody(status, code), headers));
    assert.match(problems.join(), /body does not match|is not documented/, `${method} ${path} ${code}`);
  }
  // The admin API's 401 always names its challenge.
  assert.match(
    (await check('GET', admin, json(401, errorBody(401, 40103)))).join(),
    /lacks the header WWW-Authenticate/,
  );
  // Larder's own pages are never faulted: no injected 429, 502 or 504 there, as on any other path.
  for (const [status, code] of [
    [429, 42902],
    [502, 50201],
    [504, 50401],
  ] as const) {
    const answer = () => json(status, errorBody(status, code), retry);
    for (const path of ['/docs', '/healthz', admin])
      assert.match(
        (await check('GET', path, answer())).join(),
        new RegExp(`status ${status} is not documented`),
        `${path} ${status}`,
      );
    assert.deepEqual(await check('GET', jwks, answer()), [], `${jwks} ${status}`);
  }
});

test('a method a path does not take is answered 405 with Allow, as the served document says, on every path', async () => {
  const store = await createSqliteStore({ path: ':memory:' });
  const adminToken = 'admin-token-for-405s';
  try {
    for (const config of [{ adminToken }, {}]) {
      const { app } = await createApp({
        store,
        clock: systemClock,
        logger: silentLogger,
        config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false, ...config },
      });
      const served = (await (await app.request('/openapi.json')).json()) as typeof document;
      const checkServed = createContractChecker(served);
      const paths = Object.keys(served.paths);
      assert.ok(paths.filter(isLarderOwnPath).length >= ('adminToken' in config ? 20 : 5));
      for (const template of paths) {
        // No path takes PATCH; the admin API asks for its token before it looks at the method.
        const path = template.replace(/\{[^}]+\}/g, 'x');
        const response = await app.request(path, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${adminToken}` },
        });
        assert.equal(response.status, 405, path);
        assert.ok(response.headers.get('allow'), path);
        assert.deepEqual(await checkServed('PATCH', path, response), [], path);
        // Held to the documented 405, not merely to the ErrorMessage shape: its Allow header is required.
        const withoutAllow = new Response(response.body, { status: 405, headers: response.headers });
        withoutAllow.headers.delete('allow');
        assert.match(
          (await checkServed('PATCH', path, withoutAllow)).join(),
          /405 lacks the header Allow/,
          path,
        );
      }
    }
  } finally {
    await store.close();
  }
});

test("the token endpoint's errors may carry only the RFC 6749 codes each status stands for", async () => {
  const token = '/authentication/v1/authentication/customer/oauth/token';
  const oauth = (error: string) => ({ error, error_description: 'd', requestId: 'r-1' });
  for (const [status, error] of [
    [400, 'invalid_scope'],
    [401, 'invalid_client'],
    [429, 'temporarily_unavailable'],
    [500, 'server_error'],
    [502, 'temporarily_unavailable'],
    [504, 'temporarily_unavailable'],
  ] as const) {
    const headers = status === 429 ? { 'retry-after': '1' } : {};
    assert.deepEqual(
      await check('POST', token, json(status, oauth(error), headers)),
      [],
      `${status} ${error}`,
    );
  }
  for (const [status, error] of [
    [400, 'invalid_client'],
    [401, 'invalid_request'],
    [502, 'server_error'],
    [500, 'temporarily_unavailable'],
  ] as const)
    assert.match(
      (await check('POST', token, json(status, oauth(error)))).join(),
      /body does not match/,
      `${status} ${error}`,
    );
});

test('every documented example shows a code its answer may carry', async () => {
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item))
      for (const [status, answer] of Object.entries(operation.responses)) {
        const media = (answer as { content?: Record<string, { example?: unknown }> }).content?.[
          'application/json'
        ];
        if (media?.example === undefined || Number(status) < 400) continue;
        const headers = {
          'retry-after': '1',
          allow: 'POST',
          'www-authenticate': 'Bearer realm="larder-admin"',
        };
        const problems = await check(
          method.toUpperCase(),
          path,
          json(Number(status), media.example, headers),
        );
        assert.deepEqual(
          problems.filter((problem) => /body/.test(problem)),
          [],
          `${method} ${path} ${status}`,
        );
      }
});

test('the test suite runs with the contract enforced', () => {
  assert.equal(process.env['LARDER_CONTRACT'], 'enforce');
});

test('a violation nobody looks at still fails the test process at exit', async () => {
  const contract = pathToFileURL(join(REPO, 'src', 'middleware', 'contract', 'contract.ts')).href;
  const script = `
    import { Hono } from 'hono';
    import { responseContract } from ${JSON.stringify(contract)};
    const document = { paths: { '/x': { get: { operationId: 'x', responses: { '204': {} } } } }, components: { schemas: {} } };
    const app = new Hono();
    app.use(responseContract(document));
    app.get('/x', (c) => c.text('surprise'));
    await app.request('/x');
  `;
  const run = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO,
  });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /OpenAPI contract violations:\n {2}GET \/x \(x\): status 200 is not documented/);
});
