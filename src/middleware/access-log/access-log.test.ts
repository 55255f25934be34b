import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { noteFacts } from '../../http/request-facts.js';
import { createTestClock } from '../../shared/clock.js';
import { LarderError } from '../../shared/errors.js';
import { createLogger, type LogLevel, silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { accessLog } from './access-log.js';

const setup = (level: LogLevel = 'info') => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    sink: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    clock: createTestClock(0),
  });
  const app = new Hono();
  app.use(requestId());
  app.use(accessLog({ logger }));
  app.onError(createErrorEdge(silentLogger));
  app.notFound((c) => createErrorEdge(silentLogger)(new LarderError('ERR_ROUTE_NOT_FOUND'), c));
  app.get('/healthz', (c) => c.text('ok'));
  app.post('/token', (c) => {
    noteFacts(c, { code: 'invalid_client' });
    return c.json({ error: 'invalid_client' }, 401);
  });
  app.post('/items/:itemId', (c) => {
    noteFacts(c, { clientId: 'client-7', tokenFingerprint: 'ffff', body: { secret: 'body-secret' } });
    if (c.req.param('itemId') === 'gone') throw new LarderError('ERR_NOT_FOUND');
    return c.text('ok');
  });
  // As the retail routes: a later route of the same method matches the path above too, and never runs.
  app.post('/:any/:id', (c) => c.text('405'));
  return { app, lines };
};

const SECRET_HEADERS = {
  authorization: 'Bearer eyJ.token-value.sig',
  'platform-restaurant-external-id': 'loc-1',
  'x-request-id': 'req-1',
};

test('one JSON line per request: id, method, route pattern, status, code, duration, client and location', async () => {
  const { app, lines } = setup();
  await app.request('/items/42?token=query-secret', { method: 'POST', headers: SECRET_HEADERS });
  await app.request('/items/gone', { method: 'POST', headers: SECRET_HEADERS });
  assert.equal(lines.length, 2);
  const [ok, missing] = lines;
  assert.equal(ok?.msg, 'request');
  assert.equal(ok?.level, 'info');
  assert.equal(ok?.requestId, 'req-1');
  assert.equal(ok?.method, 'POST');
  assert.equal(ok?.route, '/items/:itemId');
  assert.equal(ok?.status, 200);
  assert.equal(ok?.clientId, 'client-7');
  assert.equal(ok?.location, 'loc-1');
  assert.equal(typeof ok?.durationMs, 'number');
  assert.equal(ok?.code, undefined);
  assert.equal(missing?.status, 404);
  assert.equal(missing?.code, 40401);
});

test('code is always a number: an OAuth error code goes in oauthError', async () => {
  const { app, lines } = setup();
  await app.request('/token', { method: 'POST' });
  assert.equal(lines[0]?.code, undefined);
  assert.equal(lines[0]?.oauthError, 'invalid_client');
});

test('the route is the one the request was for, not a later route that also matches its path', async () => {
  const { app, lines } = setup();
  await app.request('/items/42', { method: 'POST' });
  await app.request('/other/42', { method: 'POST' });
  assert.deepEqual(
    lines.map((line) => line.route),
    ['/items/:itemId', '/:any/:id'],
  );
});

test('never a secret, a token, the Authorization value, the query or the body', async () => {
  const { app, lines } = setup();
  await app.request('/items/42?token=query-secret', { method: 'POST', headers: SECRET_HEADERS });
  const text = JSON.stringify(lines);
  for (const leaked of ['token-value', 'Bearer', 'query-secret', 'body-secret', 'ffff'])
    assert.ok(!text.includes(leaked), `${leaked} in ${text}`);
});

test('unmatched paths are logged bounded; health probes only at debug', async () => {
  const { app, lines } = setup();
  await app.request(`/${'x'.repeat(5000)}`);
  await app.request('/healthz');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.status, 404);
  assert.equal(lines[0]?.route, undefined);
  assert.equal(String(lines[0]?.path).length, 128);
  const debug = setup('debug');
  await debug.app.request('/healthz');
  assert.equal(debug.lines[0]?.level, 'debug');
});

test('--log-level warn keeps request lines out', async () => {
  const { app, lines } = setup('warn');
  await app.request('/items/1', { method: 'POST' });
  assert.equal(lines.length, 0);
});
