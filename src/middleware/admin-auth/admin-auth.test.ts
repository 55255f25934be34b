import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { silentLogger } from '../../shared/logger.js';
import { adminAuth } from './admin-auth.js';

const app = new Hono();
app.onError(createErrorEdge(silentLogger));
app.use('/admin/*', adminAuth('s3cret'));
app.get('/admin/x', (c) => c.text('in'));

test('only the exact admin token passes', async () => {
  assert.equal((await app.request('/admin/x', { headers: { authorization: 'Bearer s3cret' } })).status, 200);
  for (const authorization of [undefined, '', 'Bearer', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret']) {
    const response = await app.request('/admin/x', {
      headers: authorization === undefined ? {} : { authorization },
    });
    assert.equal(response.status, 401, String(authorization));
    assert.equal(((await response.json()) as { code: number }).code, 40103);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="larder-admin"');
  }
});
