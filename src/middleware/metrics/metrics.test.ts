import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { LarderError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/logger.js';
import { createMetrics } from '../../shared/metrics.js';
import { measureRequests } from './metrics.js';

const setup = () => {
  const metrics = createMetrics({ processMetrics: false });
  const app = new Hono();
  app.use(
    measureRequests({
      metrics,
      operationOf: (method, path) => (method === 'POST' && path === '/login' ? 'login' : undefined),
      tokenOperations: new Set(['login']),
    }),
  );
  const edge = createErrorEdge(silentLogger);
  app.onError(edge);
  app.notFound((c) => edge(new LarderError('ERR_ROUTE_NOT_FOUND'), c));
  app.post('/login', async (c) => {
    const { secret } = await c.req.json<{ secret: string }>();
    if (secret === 'throttled') throw new LarderError('ERR_RATE_LIMITED');
    if (secret !== 'right') throw new LarderError('ERR_INVALID_CREDENTIALS');
    return c.json({ token: 't' });
  });
  app.get('/items/:itemId', (c) => c.text('ok'));
  app.use('/cors/*', (c) => Promise.resolve(c.body(null, 204)));
  return { app, metrics };
};

const login = (app: Hono, secret: string) =>
  app.request('/login', { method: 'POST', body: JSON.stringify({ secret }) });

test('counts requests by operation (or route pattern) and status, never by raw path', async () => {
  const { app, metrics } = setup();
  await app.request('/items/1');
  await app.request('/items/2');
  await app.request('/random/path/123');
  const text = await metrics.registry.metrics();
  assert.match(
    text,
    /larder_http_requests_total\{operation="\/items\/:itemId",method="GET",status="200"\} 2/,
  );
  assert.match(text, /larder_http_requests_total\{operation="unmatched",method="GET",status="404"\} 1/);
  assert.match(
    text,
    /larder_http_request_duration_seconds_count\{operation="\/items\/:itemId",status="200"\} 2/,
  );
  assert.ok(!text.includes('/items/1'));
});

test('a CORS preflight is counted as one, not as an unmatched path', async () => {
  const { app, metrics } = setup();
  await app.request('/cors/search', {
    method: 'OPTIONS',
    headers: { 'access-control-request-method': 'POST' },
  });
  const text = await metrics.registry.metrics();
  assert.match(text, /larder_http_requests_total\{operation="preflight",method="OPTIONS",status="204"\} 1/);
});

test('tokens issued and refused, and 429 refusals by error code', async () => {
  const { app, metrics } = setup();
  await login(app, 'right');
  await login(app, 'wrong');
  await login(app, 'throttled');
  const text = await metrics.registry.metrics();
  assert.match(text, /larder_tokens_issued_total\{operation="login"\} 1/);
  assert.match(text, /larder_token_failures_total\{operation="login",status="401"\} 1/);
  assert.match(text, /larder_token_failures_total\{operation="login",status="429"\} 1/);
  assert.match(text, /larder_throttle_refusals_total\{code="42901"\} 1/);
});
