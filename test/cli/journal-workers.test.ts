import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServe, stop } from '../helpers/cli.js';

/**
 * The journal of `larder serve --workers 2` on a frozen clock: every request arrives at one virtual instant, each
 * worker counts its own seq, and the listing still follows the order the requests were answered in.
 */

const ADMIN = 'journal-workers-admin-token-0123';
const REQUESTS = 10;
let dir: string;
let server: Awaited<ReturnType<typeof startServe>>;

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/_larder${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', connection: 'close' },
  });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-journal-workers-'));
  const sandbox = ['--no-demo', '--port', '0', '--workers', '2', '--admin-token', ADMIN];
  server = await startServe(['--db', join(dir, 'larder.db'), ...sandbox]);
});
after(async () => {
  if (server !== undefined) await stop(server.child);
  await rm(dir, { recursive: true, force: true });
});

test('under --workers 2 on a frozen clock, requests list in the order they were answered, not worker by worker', async () => {
  const frozen = await admin('/clock', {
    method: 'PUT',
    body: JSON.stringify({ now: '2025-06-01T09:00:00Z', frozen: true }),
  });
  assert.equal(frozen.status, 200);
  const frozenAtMs = Date.parse('2025-06-01T09:00:00Z');
  // One after another, each on a fresh connection, so the primary hands them to the workers in turn.
  const send = async (count: number) => {
    for (let n = 0; n < count; n++)
      await fetch(`${server.url}/.well-known/jwks.json`, {
        headers: { connection: 'close', 'x-request-id': `frozen-${n}` },
      });
    return (
      (await (await admin('/requests')).json()) as {
        requests: { id: string; requestId: string; timeMs: number }[];
      }
    ).requests;
  };
  const clear = async () => assert.equal((await admin('/requests', { method: 'DELETE' })).status, 200);
  // The other worker takes up the frozen clock at its next poll of the store: until both answer on it.
  for (;;) {
    await clear();
    const probes = await send(4);
    const workers = new Set(probes.map(({ id }) => id.split(':')[0]));
    if (workers.size === 2 && probes.every(({ timeMs }) => timeMs === frozenAtMs)) break;
  }
  await clear();
  const requests = await send(REQUESTS);
  assert.ok(
    requests.every(({ timeMs }) => timeMs === frozenAtMs),
    'one virtual instant',
  );
  // Which worker answered each, in the order sent: back to one after the other, so worker by worker is wrong.
  const workerOf = new Map(requests.map(({ id, requestId }) => [requestId, id.split(':')[0]]));
  const answeredBy = Array.from({ length: REQUESTS }, (_, n) => workerOf.get(`frozen-${n}`));
  assert.ok(
    answeredBy.some(
      (worker, n) => n > 1 && worker !== answeredBy[n - 1] && answeredBy.slice(0, n).includes(worker),
    ),
    `the workers answered in turn: ${answeredBy.join(' ')}`,
  );
  assert.deepEqual(
    requests.map(({ requestId }) => requestId),
    Array.from({ length: REQUESTS }, (_, n) => `frozen-${n}`),
  );
});
