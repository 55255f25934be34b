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
  // RFC 9110 §15.5.9: the server gives up on the connection (the rest of the body may still come), and says so.
  assert.equal(response.headers.get('connection'), 'close');
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body['code'], 40801);
  assert.match(String(body['message']), /body did not arrive within 0.05 s/);
  assert.equal((await app.request('/stuck', undefined, { incoming: { complete: true } })).status, 503);
});

test('idle() waits for every request in the pipeline, timed or not, and for what they do on the way out', async () => {
  const timed = requestDeadline(60_000, (c) => c.req.path === '/untimed');
  const loggedAfter: string[] = [];
  const held = new Hono();
  held.use(async (c, next) => {
    await next().catch(() => {});
    loggedAfter.push(c.req.path);
  });
  held.use(timed);
  const releases: (() => void)[] = [];
  const hold = () => new Promise<Response>((resolve) => releases.push(() => resolve(new Response('late'))));
  held.get('/timed', hold);
  held.get('/untimed', hold);

  await timed.idle();
  const answers = [held.request('/timed'), held.request('/untimed')];
  let idle = false;
  const whenIdle = timed.idle().then(() => {
    idle = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(idle, false);
  releases[0]?.();
  await answers[0];
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(idle, false, 'the untimed request is still being handled');
  releases[1]?.();
  await whenIdle;
  assert.deepEqual(loggedAfter.sort(), ['/timed', '/untimed']);
});
