import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServe, stop } from '../helpers/cli.js';

/** With --workers 2 the failed-login limit is the instance's, not each worker's. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-workers-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('--workers 2 --login-throttle 3/min: wrong logins spread over both workers are refused after 3, not 6', {
  timeout: 90_000,
}, async () => {
  const server = await startServe([
    '--db',
    join(dir, 'larder.db'),
    '--no-demo',
    '--port',
    '0',
    '--workers',
    '2',
    '--login-throttle',
    '3/min',
  ]);
  try {
    const statuses: number[] = [];
    // A new connection each time: the primary hands them to the workers in turn.
    for (let attempt = 0; attempt < 8; attempt++) {
      const response = await fetch(`${server.url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({
          clientId: 'someone',
          clientSecret: 'wrong',
          userAccessType: 'PLATFORM_MACHINE_CLIENT',
        }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    const firstRefusal = statuses.indexOf(429);
    // Failures reach the other worker within an IPC hop, so one attempt may race it: per-worker limits would
    // first refuse the 7th.
    assert.ok(firstRefusal === 3 || firstRefusal === 4, `statuses ${statuses.join(' ')}`);
    assert.ok(
      statuses.slice(firstRefusal).every((status) => status === 429),
      `statuses ${statuses.join(' ')}`,
    );
  } finally {
    assert.equal(await stop(server.child), 0);
  }
});
