import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { requestId } from './request-id.js';

const app = new Hono();
app.use(requestId());
app.get('/', (c) => c.text(c.get('requestId')));

test('a sane X-Request-Id is kept, echoed and visible to later handlers', async () => {
  const response = await app.request('/', { headers: { 'x-request-id': 'abc-123.def' } });
  assert.equal(response.headers.get('x-request-id'), 'abc-123.def');
  assert.equal(await response.text(), 'abc-123.def');
});

test('a missing or unsafe X-Request-Id is replaced by a new UUID', async () => {
  for (const headers of [{}, { 'x-request-id': 'has space' }, { 'x-request-id': 'x'.repeat(129) }]) {
    const response = await app.request('/', { headers });
    const id = response.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(await response.text(), id);
  }
});
