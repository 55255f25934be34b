import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createApp } from '../../src/server/app.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { stubGuard, TEST_AUTHORIZATION } from '../helpers/retail-app.js';

let dir: string;
let store: Store;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-routing-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

// Hono's SmartRouter keeps the first router that takes every route: one route its RegExpRouter refuses (two of
// one method that can match the same path, such as `…/search` beside `…/:id`) turns every request's match into
// a TrieRouter walk, about a microsecond more. Nothing else would show it.
for (const [name, adminToken] of [
  ['without the admin API', undefined],
  ['with the admin API', 'routing-admin-token-0123456789'],
] as const) {
  test(`every route fits Hono's RegExpRouter, ${name}`, async () => {
    const { app } = await createApp({
      store,
      clock: systemClock,
      logger: silentLogger,
      config: {
        publicUrl: 'http://larder.test',
        tokenTtlSeconds: 3600,
        trustProxy: false,
        live: false,
        ...(adminToken === undefined ? {} : { adminToken }),
      },
      guard: stubGuard(['loc-a']),
    });
    const response = await app.request('/v1/purchaseOrders/search', {
      method: 'GET',
      headers: { authorization: TEST_AUTHORIZATION },
    });
    assert.equal(response.status, 405);
    assert.equal(app.router.name, 'SmartRouter + RegExpRouter');
  });
}
