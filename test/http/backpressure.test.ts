import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { PURCHASE_ORDER_ROWS } from '../../src/records/rows.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { LOGIN, loginRequest } from '../auth/harness.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { importInto, T0 } from '../storage/records.js';

/**
 * Pipelined large searches whose answers are never read: the server stops reading the connection once its
 * answers back up (socket backpressure), so the work done and the memory held stay bounded; reading resumes it.
 * A flood of cheap requests is stopped too, before its answers back up: past a few held requests.
 */

const PIPELINED = 400;

let dir: string;
let store: Store;
let server: RunningServer;
let searches = 0;
let request: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-backpressure-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
  const location = await importInto(store, {
    // Whole records: every answer is held to the OpenAPI document in the tests.
    purchaseOrders: Array.from({ length: 500 }, (_, n) =>
      PURCHASE_ORDER_ROWS.toRow(purchaseOrderFixture(n, { modifiedAt: T0 + n })),
    ),
  });
  const page = store.records.page.bind(store.records);
  store.records.page = (...args) => {
    searches++;
    return page(...args);
  };
  const client = await createClientCredentials(store, { name: 'pipeliner', locations: [location] });
  server = await startServer({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 3600, trustProxy: false },
  });
  const login = await fetch(`${server.url}${LOGIN}`, loginRequest(client));
  const token = ((await login.json()) as { token: { accessToken: string } }).token.accessToken;
  const body = '{"includeArchived":true}';
  request = [
    'POST /v1/purchaseOrders/search?pageSize=500 HTTP/1.1',
    'Host: larder',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Platform-Restaurant-External-ID: ${location}`,
    `Content-Length: ${body.length}`,
    '',
    body,
  ].join('\r\n');
});
after(async () => {
  await server.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once `count()` has not changed for `quietMs`: "nothing more happens" has no event to wait for. */
const settled = async (count: () => number, quietMs: number): Promise<number> => {
  let last = -1;
  while (count() !== last) {
    last = count();
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
  return last;
};

test('searches pipelined on a connection that is not read are not all run; once read, every answer comes', {
  timeout: 60_000,
}, async () => {
  searches = 0;
  const socket = connect(server.port, '127.0.0.1');
  socket.pause();
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(request.repeat(PIPELINED));
  const heapBefore = process.memoryUsage().heapUsed;
  const handled = await settled(() => searches, 300);
  assert.ok(handled < PIPELINED / 2, `${handled} of ${PIPELINED} searches ran with nobody reading`);
  const grown = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  assert.ok(grown < 100, `heap grew ${grown.toFixed(0)} MB`);

  // Reading drains the answers, and the server takes up the rest of the pipeline.
  let answers = 0;
  let tail = '';
  await new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      answers += text.split('HTTP/1.1 200 OK').length - 1;
      tail = text.slice(-20);
      if (answers === PIPELINED) resolve();
    });
    socket.resume();
  });
  socket.destroy();
  assert.equal(searches, PIPELINED);
});

test('a flood of small pipelined requests is held only a few at a time', { timeout: 60_000 }, async () => {
  // Node publishes every request it parses and every answer it finishes: the difference is what sits parsed
  // and waiting. Node parses a whole read (64 kB, ~1,900 of these requests) at once, so that much may wait.
  let parsed = 0;
  let finished = 0;
  let mostWaiting = 0;
  const onParsed = () => {
    parsed++;
    mostWaiting = Math.max(mostWaiting, parsed - finished);
  };
  const onFinished = () => {
    finished++;
  };
  subscribe('http.server.request.start', onParsed);
  subscribe('http.server.response.finish', onFinished);
  try {
    const socket = connect(server.port, '127.0.0.1');
    socket.pause();
    await new Promise((resolve) => socket.once('connect', resolve));
    const SENT = 100_000;
    socket.write('GET /healthz HTTP/1.1\r\nHost: larder\r\n\r\n'.repeat(SENT));
    await settled(() => parsed, 300);
    socket.destroy();
    assert.ok(mostWaiting < 5_000, `${mostWaiting} requests were parsed and waiting at once`);
  } finally {
    unsubscribe('http.server.request.start', onParsed);
    unsubscribe('http.server.response.finish', onFinished);
  }
});
