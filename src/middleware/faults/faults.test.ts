import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { localFaultControl } from '../../sandbox/fault-control.js';
import type { FaultRule } from '../../sandbox/fault-schemas.js';
import { createFaultEngine, parseFaultHeader } from '../../sandbox/faults.js';
import { silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { injectFaults } from './faults.js';

const TOKEN_PATH = '/oauth/token';
const PO_SEARCH = '/v1/purchaseOrders/search';

const token = (clientId: string) =>
  `h.${Buffer.from(JSON.stringify({ client_id: clientId })).toString('base64url')}.s`;

const setup = (rules: FaultRule[], options: { allowHeader?: boolean; control?: boolean } = {}) => {
  const engine = createFaultEngine(rules);
  const delays: number[] = [];
  const app = new Hono();
  app.use(requestId());
  app.onError(createErrorEdge(silentLogger));
  app.use(
    injectFaults({
      control: options.control === false ? undefined : localFaultControl(engine),
      allowHeader: options.allowHeader === true,
      operationOf: (method, path) =>
        method === 'POST' && path === '/v1/items/search'
          ? 'searchItems'
          : method === 'POST' && path === PO_SEARCH
            ? 'searchPurchaseOrders'
            : path === TOKEN_PATH
              ? 'oauthToken'
              : undefined,
      skip: (path) => path.startsWith('/_admin'),
      tokenPath: TOKEN_PATH,
      delay: async (ms) => {
        delays.push(ms);
      },
    }),
  );
  app.all('*', (c) => c.json({ ok: true }));
  const send = async (path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    app.request(path, { method: init.method ?? 'POST', headers: init.headers ?? {} });
  return { engine, app, send, delays };
};

const statuses = async (responses: Promise<Response>[]) =>
  (await Promise.all(responses)).map((r) => r.status);
const sequential = async (n: number, send: () => Promise<Response>) => {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await send()).status);
  return seen;
};

describe('status effects', () => {
  for (const status of [500, 502, 503, 504] as const) {
    test(`${status} is an ErrorMessage with canRetry "true" and the request id`, async () => {
      const { send } = setup([{ effect: { type: 'status', status } }]);
      const response = await send('/v1/items/search');
      assert.equal(response.status, status);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['status'], String(status));
      assert.equal(body['canRetry'], 'true');
      assert.equal(typeof body['code'], 'number');
      assert.equal(body['requestId'], response.headers.get('x-request-id'));
    });
  }

  test('429 sends Retry-After (1 s by default) and the rate-limit code 42902; 503 may send one', async () => {
    const { send } = setup([
      { match: { pathPrefix: '/a' }, effect: { type: 'status', status: 429 } },
      { match: { pathPrefix: '/b' }, effect: { type: 'status', status: 429, retryAfterSeconds: 7 } },
      { match: { pathPrefix: '/c' }, effect: { type: 'status', status: 503, retryAfterSeconds: 3 } },
    ]);
    const a = await send('/a');
    assert.equal(a.status, 429);
    assert.equal(a.headers.get('retry-after'), '1');
    assert.equal(((await a.json()) as { code: number }).code, 42902);
    assert.equal((await send('/b')).headers.get('retry-after'), '7');
    const c = await send('/c');
    assert.equal(c.status, 503);
    assert.equal(c.headers.get('retry-after'), '3');
  });

  test('the OAuth token endpoint answers in RFC 6749 shape', async () => {
    const { send } = setup([
      { match: { method: 'post' }, when: { next: 1 }, effect: { type: 'status', status: 429 } },
      { effect: { type: 'status', status: 500 } },
    ]);
    const limited = await send(TOKEN_PATH);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.deepEqual(Object.keys((await limited.json()) as object).sort(), [
      'error',
      'error_description',
      'requestId',
    ]);
    const failed = await send(TOKEN_PATH);
    assert.equal(failed.status, 500);
    assert.equal(((await failed.json()) as { error: string }).error, 'server_error');
  });

  test('at the token endpoint, 502, 503 and 504 are temporarily_unavailable, as the document says', async () => {
    for (const status of [502, 503, 504] as const) {
      const { send } = setup([{ effect: { type: 'status', status } }]);
      const answer = await send(TOKEN_PATH);
      assert.equal(answer.status, status);
      assert.equal(((await answer.json()) as { error: string }).error, 'temporarily_unavailable');
    }
  });
});

describe('other effects (in process; the transport ones are tested on a real socket)', () => {
  test('latency waits the fixed delay, then answers normally', async () => {
    const { send, delays } = setup([{ effect: { type: 'latency', ms: 800 } }]);
    assert.equal((await send('/x')).status, 200);
    assert.deepEqual(delays, [800]);
  });

  test('uniform and log-normal latency stay in range and repeat under a seed', async () => {
    const draws = async (rule: FaultRule) => {
      const { send, delays } = setup([rule]);
      for (let i = 0; i < 50; i++) await send('/x');
      return delays;
    };
    const uniform: FaultRule = {
      seed: 7,
      effect: { type: 'latency', distribution: 'uniform', minMs: 100, maxMs: 200 },
    };
    const first = await draws(uniform);
    assert.ok(first.every((ms) => ms >= 100 && ms <= 200));
    assert.ok(new Set(first).size > 10);
    assert.deepEqual(await draws(uniform), first);
    const logNormal: FaultRule = {
      seed: 1,
      effect: { type: 'latency', distribution: 'logNormal', medianMs: 100, sigma: 0.5 },
    };
    const spread = await draws(logNormal);
    assert.deepEqual(await draws(logNormal), spread);
    const sorted = [...spread].sort((a, b) => a - b);
    assert.ok(sorted[25]! > 50 && sorted[25]! < 200, `median ${sorted[25]}`);
  });

  test('invalidToken answers 401 invalid_token, only to retail requests with a bearer token', async () => {
    const { send } = setup([{ effect: { type: 'invalidToken' } }]);
    const bearer = { authorization: `Bearer ${token('c1')}` };
    assert.equal((await send('/v1/items/x')).status, 200);
    const response = await send('/v1/items/x', { headers: bearer });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.equal(((await response.json()) as { code: number }).code, 40101);
    // A login or token request carrying a bearer token has no access token to refuse.
    assert.equal((await send('/authentication/v1/authentication/login', { headers: bearer })).status, 200);
    assert.equal((await send(TOKEN_PATH, { headers: bearer })).status, 200);
  });

  test('badPageToken answers 400 naming pageToken, only to searches with a pageToken', async () => {
    const { send } = setup([{ effect: { type: 'badPageToken' } }]);
    assert.equal((await send(PO_SEARCH)).status, 200);
    const response = await send(`${PO_SEARCH}?pageToken=abc`);
    assert.equal(response.status, 400);
    const body = (await response.json()) as { code: number; fieldName: string };
    assert.equal(body.code, 40005);
    assert.equal(body.fieldName, 'pageToken');
    // A get by id never answers 40005, whatever its query says; nor does any other operation.
    assert.equal((await send('/v1/purchaseOrders/x?pageToken=abc', { method: 'GET' })).status, 200);
    assert.equal((await send(`${TOKEN_PATH}?pageToken=abc`)).status, 200);
  });

  test('the header naming an effect the request cannot have is a 400 naming it', async () => {
    const { send } = setup([], { allowHeader: true, control: false });
    for (const [path, fault, why] of [
      ['/v1/purchaseOrders/x?pageToken=abc', 'bad-page-token', /applies only to a search/],
      ['/authentication/v1/authentication/login', 'invalid-token', /applies only to the retail API/],
    ] as const) {
      const response = await send(path, { method: 'GET', headers: { 'larder-fault': fault } });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { code: number; fieldName: string; message: string };
      assert.equal(body.code, 40001);
      assert.equal(body.fieldName, 'Larder-Fault');
      assert.match(body.message, why);
    }
    const search = await send(`${PO_SEARCH}?pageToken=abc`, {
      headers: { 'larder-fault': 'bad-page-token' },
    });
    assert.equal(((await search.json()) as { code: number }).code, 40005);
  });

  test('the header is refused where a rule of its effect would not fire: no pageToken, no bearer token', async () => {
    const { send } = setup([], { allowHeader: true, control: false });
    for (const [path, headers, why] of [
      // A first page sends no pageToken: no server answers it 40005 naming one.
      [PO_SEARCH, { 'larder-fault': 'bad-page-token' }, /applies only to a search that sends a pageToken/],
      // No token sent, none to refuse as invalid.
      ['/v1/items/x', { 'larder-fault': 'invalid-token' }, /applies only to a request with a bearer token/],
    ] as const) {
      const response = await send(path, { headers });
      assert.equal(response.status, 400, path);
      const body = (await response.json()) as { code: number; fieldName: string; message: string };
      assert.equal(body.code, 40001);
      assert.equal(body.fieldName, 'Larder-Fault');
      assert.match(body.message, why);
    }
    const bearer = { authorization: `Bearer ${token('c1')}`, 'larder-fault': 'invalid-token' };
    assert.equal((await send('/v1/items/x', { headers: bearer })).status, 401);
  });
});

describe('matching', () => {
  const effect = { type: 'status', status: 503 } as const;
  test('operation id', async () => {
    const { send } = setup([{ match: { operation: 'searchItems' }, effect }]);
    assert.deepEqual(await statuses([send('/v1/items/search'), send('/v1/items/x')]), [503, 200]);
  });
  test('client id: the bearer token’s client, or the Basic credentials’', async () => {
    const { send } = setup([{ match: { clientId: 'c1' }, effect }]);
    const basic = (id: string) => `Basic ${Buffer.from(`${id}:secret`).toString('base64')}`;
    assert.deepEqual(
      await statuses([
        send('/x', { headers: { authorization: `Bearer ${token('c1')}` } }),
        send('/x', { headers: { authorization: `Bearer ${token('c2')}` } }),
        send(TOKEN_PATH, { headers: { authorization: basic('c1') } }),
        send(TOKEN_PATH, { headers: { authorization: basic('c2') } }),
        send('/x'),
      ]),
      [503, 200, 503, 200, 200],
    );
  });
  test('location', async () => {
    const { send } = setup([{ match: { location: 'loc-1' }, effect }]);
    const at = (location: string) => send('/x', { headers: { 'platform-restaurant-external-id': location } });
    assert.deepEqual(await statuses([at('loc-1'), at('loc-2'), send('/x')]), [503, 200, 200]);
  });
  test('method (any case) and path prefix, together', async () => {
    const { send } = setup([{ match: { method: 'get', pathPrefix: '/v1/' }, effect }]);
    assert.deepEqual(
      await statuses([
        send('/v1/a', { method: 'GET' }),
        send('/v1/a', { method: 'POST' }),
        send('/v2/a', { method: 'GET' }),
      ]),
      [503, 200, 200],
    );
  });
  test('skipped paths are never faulted', async () => {
    const { send } = setup([{ effect }]);
    assert.equal((await send('/_admin/faults')).status, 200);
  });
});

describe('when', () => {
  const effect = { type: 'status', status: 503 } as const;
  test('next N: the next N matching requests, then none', async () => {
    const { send, engine } = setup([{ when: { next: 2 }, effect }]);
    assert.deepEqual(await sequential(4, () => send('/x')), [503, 503, 200, 200]);
    assert.deepEqual(
      engine.list().rules.map(({ matched, applied }) => ({ matched, applied })),
      [{ matched: 4, applied: 2 }],
    );
  });
  test('every Nth, counted per rule whatever the others do', async () => {
    const { send } = setup([
      { match: { pathPrefix: '/x' }, when: { next: 1 }, effect: { type: 'status', status: 500 } },
      { when: { every: 3 }, effect },
    ]);
    assert.deepEqual(await sequential(7, () => send('/x')), [500, 200, 503, 200, 200, 503, 200]);
  });
  test('probability with a seed: the same sequence on every run; without one, still about p', async () => {
    const rule: FaultRule = { seed: 42, when: { probability: 0.3 }, effect };
    const first = await sequential(200, setup([rule]).send.bind(null, '/x'));
    const second = await sequential(200, setup([rule]).send.bind(null, '/x'));
    assert.deepEqual(second, first);
    const faulted = first.filter((s) => s === 503).length;
    assert.ok(faulted > 35 && faulted < 85, `${faulted} of 200`);
    const other = await sequential(200, setup([{ ...rule, seed: 43 }]).send.bind(null, '/x'));
    assert.notDeepEqual(other, first);
  });
  test('probability 0 never fires; 1 always', async () => {
    const { send } = setup([
      { match: { pathPrefix: '/never' }, when: { probability: 0 }, effect },
      { match: { pathPrefix: '/always' }, when: { probability: 1 }, effect },
    ]);
    assert.deepEqual(await statuses([send('/never'), send('/always')]), [200, 503]);
  });
});

describe('the Larder-Fault header', () => {
  test('applies to its one request when allowed, ahead of the rules', async () => {
    const { send, delays } = setup([], { allowHeader: true, control: false });
    const header = (value: string) => send('/x', { headers: { 'larder-fault': value } });
    assert.equal((await header('status=503')).status, 503);
    const limited = await header('status=429; retry-after=5');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '5');
    assert.equal((await header('latency=800ms')).status, 200);
    assert.equal((await header('latency=2s')).status, 200);
    assert.deepEqual(delays, [800, 2000]);
    assert.equal((await send('/x')).status, 200);
  });

  test('is ignored unless allowed', async () => {
    const { send } = setup([]);
    assert.equal((await send('/x', { headers: { 'larder-fault': 'status=503' } })).status, 200);
  });

  test('a bad one is a 400 naming the header', async () => {
    const { send } = setup([], { allowHeader: true });
    for (const value of [
      'status=418',
      'latency=soon',
      'explode',
      'slow-body=1',
      'status=500;retry-after=3',
      // Two effects: the last would win unsaid.
      'reset;status=502',
      'latency=5ms,latency=9ms',
    ]) {
      const response = await send('/x', { headers: { 'larder-fault': value } });
      assert.equal(response.status, 400, value);
      const body = (await response.json()) as { fieldName: string; message: string };
      assert.equal(body.fieldName, 'Larder-Fault', value);
      assert.match(body.message, /^Larder-Fault: /);
    }
  });

  test('parses every effect', () => {
    const types = ['reset', 'cut-body', 'slow-body=100', 'invalid-token', 'bad-page-token'].map(
      (value) => parseFaultHeader(value).effect.type,
    );
    assert.deepEqual(types, ['reset', 'cutBody', 'slowBody', 'invalidToken', 'badPageToken']);
  });
});
