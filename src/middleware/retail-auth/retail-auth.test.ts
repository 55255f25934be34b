import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import type { RetailGuard } from '../../auth/retail-guard.js';
import { createErrorEdge } from '../../http/error-edge.js';
import { type RequestFacts, startFacts } from '../../http/request-facts.js';
import { LarderError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { heldTokenFactChars, MAX_TOKEN_FACT_CHARS, retailAuth } from './retail-auth.js';

const calls: (string | undefined)[][] = [];
const guard: RetailGuard = async (authorization, locationId) => {
  calls.push([authorization, locationId]);
  if (authorization !== 'Bearer good') throw new LarderError('ERR_UNAUTHENTICATED');
  if (locationId !== undefined && locationId !== 'loc-1' && locationId !== 'loc-4')
    throw new LarderError('ERR_LOCATION_FORBIDDEN');
  return { clientId: 'client-1', scopes: ['retail:read'] };
};

const app = new Hono();
app.use(requestId());
app.onError(createErrorEdge(silentLogger));
let handled = 0;
app.get(
  '/r',
  retailAuth(guard, async (id) => id === 'loc-1' || id === 'loc-3'),
  (c) => {
    handled++;
    return c.json({ principal: c.get('principal'), locationId: c.get('locationId') });
  },
);

const call = (headers: Record<string, string>) => app.request('/r', { headers });
const code = async (response: Response) => ((await response.json()) as { code: number }).code;

test('an authorized call reaches the handler with its principal and trimmed location', async () => {
  const response = await call({ authorization: 'Bearer good', 'platform-restaurant-external-id': ' loc-1 ' });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    principal: { clientId: 'client-1', scopes: ['retail:read'] },
    locationId: 'loc-1',
  });
});

test('the token is checked before the location header: 401 first, then 400 for a missing header', async () => {
  const before = handled;
  assert.equal(await code(await call({})), 40101);
  assert.deepEqual(calls.at(-1), [undefined, undefined]);
  assert.equal(await code(await call({ authorization: 'Bearer good' })), 40003);
  assert.equal(
    await code(await call({ authorization: 'Bearer good', 'platform-restaurant-external-id': '  ' })),
    40003,
  );
  assert.equal(
    await code(await call({ authorization: 'Bearer bad', 'platform-restaurant-external-id': 'loc-1' })),
    40101,
  );
  assert.equal(handled, before, 'no handler runs for a refused call');
});

test('a location that is not granted is a 403 and never reaches the handler', async () => {
  const before = handled;
  const response = await call({ authorization: 'Bearer good', 'platform-restaurant-external-id': 'loc-2' });
  assert.equal(response.status, 403);
  assert.equal(await code(response), 40302);
  assert.equal(handled, before);
});

test('a granted location that does not exist is a 404 naming it; an ungranted one stays a 403', async () => {
  const unknown = await call({ authorization: 'Bearer good', 'platform-restaurant-external-id': 'loc-4' });
  assert.equal(unknown.status, 404);
  const body = (await unknown.json()) as { code: number; message: string };
  assert.equal(body.code, 40403);
  assert.match(body.message, /loc-4 is unknown/);
  const existsButForbidden = await call({
    authorization: 'Bearer good',
    'platform-restaurant-external-id': 'loc-3',
  });
  assert.equal(existsButForbidden.status, 403);
});

test('refused Authorization headers are kept for their journal facts within a bound of characters', async () => {
  const noting = new Hono();
  noting.use(requestId());
  noting.onError(createErrorEdge(silentLogger));
  let noted: RequestFacts | undefined;
  noting.use(async (c, next) => {
    noted = startFacts(c);
    await next();
  });
  noting.get(
    '/r',
    retailAuth(guard, () => true),
    (c) => c.text('unreachable'),
  );
  // Headers a caller makes up, each near the 16 KiB header limit: 700 of them are over the bound.
  const padding = 'x'.repeat(15_000);
  for (let i = 0; i < 700; i++) {
    const response = await noting.request('/r', { headers: { authorization: `Bearer ${i}.${padding}` } });
    assert.equal(response.status, 401);
    assert.ok(heldTokenFactChars() <= MAX_TOKEN_FACT_CHARS, `after ${i + 1}: ${heldTokenFactChars()}`);
  }
  assert.match(noted?.tokenFingerprint ?? '', /^[0-9a-f]{16}$/);
});
