import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import type { ClientAuthenticator } from '../../auth/client-authenticator.js';
import { createFailureThrottle } from '../../auth/failure-throttle.js';
import { createTestClock } from '../../shared/clock.js';
import { loginThrottle } from './login-throttle.js';

const client = {
  clientId: 'c1',
  name: 'c1',
  secretHash: '',
  scopes: ['retail:read'],
  allLocations: true,
  locations: [],
  createdAt: '2025-01-01T00:00:00.000Z',
  revokedAt: null,
};

const setup = () => {
  const clock = createTestClock();
  let authentications = 0;
  const authenticate: ClientAuthenticator = async (clientId, secret) => {
    authentications++;
    return clientId === 'c1' && secret === 'right' ? client : undefined;
  };
  const app = new Hono();
  app.post(
    '/login',
    loginThrottle({
      throttle: createFailureThrottle({ clock, limit: 2, windowMs: 60_000 }),
      authenticate,
      sourceAddress: (c) => c.req.header('x-test-address'),
    }),
    async (c) => {
      const { id, secret } = (await c.req.json()) as { id: string; secret: string };
      return c.json(await c.get('checkCredentials')(id, secret));
    },
  );
  const check = async (id: string, secret: string, address = '10.0.0.1') => {
    const response = await app.request('/login', {
      method: 'POST',
      headers: { 'x-test-address': address },
      body: JSON.stringify({ id, secret }),
    });
    return (await response.json()) as { ok: boolean; reason?: string; retryAfterSeconds?: number };
  };
  return { clock, check, authentications: () => authentications };
};

test('correct credentials pass; wrong ones are counted; past the limit nothing is authenticated', async () => {
  const t = setup();
  assert.equal((await t.check('c1', 'right')).ok, true);
  assert.equal((await t.check('c1', 'wrong')).reason, 'invalid');
  assert.equal((await t.check('c1', 'wrong')).reason, 'invalid');
  const before = t.authentications();
  const refused = await t.check('c1', 'right');
  assert.equal(refused.reason, 'throttled');
  assert.equal(refused.retryAfterSeconds, 60);
  assert.equal(t.authentications(), before, 'a throttled check does not authenticate');
});

test('the window follows the injected clock', async () => {
  const t = setup();
  await t.check('c1', 'wrong');
  await t.check('c1', 'wrong');
  assert.equal((await t.check('c1', 'right')).reason, 'throttled');
  t.clock.advance(60_000);
  assert.equal((await t.check('c1', 'right')).ok, true);
});
