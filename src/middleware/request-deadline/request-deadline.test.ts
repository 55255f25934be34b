import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { requestDeadline } from './request-deadline.js';

const app = new Hono();
app.use(requestId());
app.use(requestDeadline(50));
app.onError(createErrorEdge(silentLogger));
app.get('/stuck', () => new Promise<Response>(() => {}));
app.get('/quick', (c) => c.text('ok'));

test('a handler that never answers gets a 503 ErrorMessage with canRetry once the deadline passes', async () => {
  const started = performance.now();
  const response = await app.request('/stuck');
  assert.ok(performance.now() - started < 2000);
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('retry-after'), '1');
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body['canRetry'], 'true');
  assert.equal(body['status'], '503');
  assert.match(String(body['message']), /did not complete within 0.05 s/);
  assert.equal(body['requestId'], response.headers.get('x-request-id'));
});

test('a handler that answers in time is untouched', async () => {
  const response = await app.request('/quick');
  assert.equal(response.status, 200);
  assert.equal(await response.text(), 'ok');
});

test('every request stuck at once gets its own 503, and a quick one among them is untouched', async () => {
  const answers = await Promise.all([
    app.request('/stuck'),
    app.request('/quick'),
    app.request('/stuck'),
    app.request('/stuck'),
  ]);
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [503, 200, 503, 503],
  );
  const refused = answers.filter((answer) => answer.status === 503);
  const ids = await Promise.all(
    refused.map(async (answer) => ((await answer.json()) as { requestId: string }).requestId),
  );
  assert.equal(new Set(ids).size, 3);
});

test('a request whose body is still arriving at the deadline gets a 408: the delay is the client’s', async () => {
  const response = await app.request('/stuck', undefined, { incoming: { complete: false } });
  assert.equal(response.status, 408);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body['code'], 40801);
  assert.match(String(body['message']), /body did not arrive within 0.05 s/);
  assert.equal((await app.request('/stuck', undefined, { incoming: { complete: true } })).status, 503);
});
