import assert from 'node:assert/strict';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { LarderResponse } from '../../http/larder-response.js';
import { readBodyText } from '../../http/request-body.js';
import { noteFacts } from '../../http/request-facts.js';
import { createJournal } from '../../sandbox/journal.js';
import { createTestClock } from '../../shared/clock.js';
import { LarderError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { journalRequests } from './journal.js';

const clock = createTestClock(Date.UTC(2025, 0, 1));
const journal = createJournal(3);
const app = new Hono();
app.use(requestId());
app.use(
  journalRequests({
    journal,
    clock,
    operationOf: (method, path) => (method === 'GET' && path.startsWith('/items/') ? 'getItem' : undefined),
    skip: (path) => path.startsWith('/_admin'),
    onError: createErrorEdge(silentLogger),
  }),
);
app.onError(createErrorEdge(silentLogger));
app.get('/items/:id', (c) => {
  noteFacts(c, { clientId: 'c1' });
  if (c.req.param('id') === 'gone') throw new LarderError('ERR_NOT_FOUND');
  return c.text('ok');
});
app.get('/_admin/x', (c) => c.text('admin'));

test('an answered request is journaled with its operation, status, error code, facts and virtual time', async () => {
  journal.clear();
  await app.request('/items/1', {
    headers: { 'x-request-id': 'r-1', 'platform-restaurant-external-id': 'loc' },
  });
  clock.advance(1000);
  await app.request('/items/gone');
  const [ok, missing] = journal.list();
  assert.equal(ok?.operation, 'getItem');
  assert.equal(ok?.requestId, 'r-1');
  assert.equal(ok?.location, 'loc');
  assert.equal(ok?.clientId, 'c1');
  assert.equal(ok?.time, '2025-01-01T00:00:00.000Z');
  assert.equal(missing?.status, 404);
  assert.equal(missing?.code, 40401);
  assert.equal(missing?.timeMs, Date.UTC(2025, 0, 1) + 1000);
});

test('the journal is bounded, and skipped paths are not recorded', async () => {
  journal.clear();
  for (let i = 0; i < 5; i++) await app.request(`/items/${i}`);
  await app.request('/_admin/x');
  const entries = journal.list();
  assert.equal(entries.length, 3);
  assert.deepEqual(
    entries.map((e) => e.path),
    ['/items/2', '/items/3', '/items/4'],
  );
});

/** An app whose layer inside the journal throws on /throws and rejects on /rejects; /missing is a 404. */
const appWithInnerLayer = (journal: ReturnType<typeof createJournal>): Hono => {
  const edge = createErrorEdge(silentLogger);
  const inner = new Hono();
  inner.use(requestId());
  inner.use(
    journalRequests({
      journal,
      clock,
      operationOf: () => 'op',
      onError: edge,
      inner: (c, next) => {
        if (c.req.path === '/throws') throw new LarderError('ERR_UNAVAILABLE');
        if (c.req.path === '/rejects') return Promise.reject(new LarderError('ERR_BAD_GATEWAY'));
        return next();
      },
    }),
  );
  inner.onError(edge);
  inner.get('/missing', () => {
    throw new LarderError('ERR_NOT_FOUND');
  });
  inner.get('*', (c) => c.text('ok'));
  return inner;
};

test('a middleware run inside the journal’s layer: its errors are answered and journaled with their status', async () => {
  const innerJournal = createJournal(4);
  const inner = appWithInnerLayer(innerJournal);
  const passed = await inner.request('/fine');
  const thrown = await inner.request('/throws');
  const rejected = await inner.request('/rejects');
  assert.deepEqual([passed.status, thrown.status, rejected.status], [200, 503, 502]);
  assert.equal(((await thrown.json()) as { code: number }).code, 50301);
  assert.deepEqual(
    innerJournal.list().map((entry) => [entry.path, entry.status, entry.code]),
    [
      ['/fine', 200, undefined],
      ['/throws', 503, 50301],
      ['/rejects', 502, 50201],
    ],
  );
});

/** A real server on port 0 answering with Larder's response class, as `larder serve` does. */
const serve = async (app: Hono): Promise<Server> => {
  const server = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: { ServerResponse: LarderResponse as typeof ServerResponse },
  }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
};

test('served by Larder’s response: entries are written with the head, inner errors answered and journaled', async () => {
  const served = createJournal(8);
  const server = await serve(appWithInnerLayer(served));
  try {
    const { port } = server.address() as AddressInfo;
    const statuses = [];
    for (const path of ['/fine', '/throws', '/rejects', '/missing'])
      statuses.push(
        (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-request-id': path } })).status,
      );
    assert.deepEqual(statuses, [200, 503, 502, 404]);
    assert.deepEqual(
      served.list().map((entry) => [entry.path, entry.status, entry.code, entry.requestId, entry.operation]),
      [
        ['/fine', 200, undefined, '/fine', 'op'],
        ['/throws', 503, 50301, '/throws', 'op'],
        ['/rejects', 502, 50201, '/rejects', 'op'],
        ['/missing', 404, 40401, '/missing', 'op'],
      ],
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a location header is journaled as its sender wrote it: UTF-8 bytes as UTF-8, others as Latin-1', async () => {
  const served = createJournal(8);
  const server = await serve(appWithInnerLayer(served));
  try {
    const { port } = server.address() as AddressInfo;
    // fetch sends each character as one byte: these are the UTF-8 bytes curl would send.
    const utf8 = Buffer.from('Café 東京').toString('latin1');
    for (const location of [utf8, 'Café', 'loc-1'])
      await fetch(`http://127.0.0.1:${port}/fine`, {
        headers: { 'platform-restaurant-external-id': location },
      });
    assert.deepEqual(
      served.list().map((entry) => entry.location),
      ['Café 東京', 'Café', 'loc-1'],
    );
    assert.equal(served.list({ location: 'Café 東京' }).length, 1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a client gone before its answer (mid-body, during a slow request) is journaled as status 0 with no code', async () => {
  const gone = createJournal(4);
  const recorded = new Promise<void>((resolve) => {
    const record = gone.recordRequest;
    gone.recordRequest = (...args) => {
      record(...args);
      resolve();
    };
  });
  // Node 20 has no Promise.withResolvers.
  const event = () => {
    let fire!: () => void;
    const happened = new Promise<void>((resolve) => {
      fire = resolve;
    });
    return [happened, () => fire()] as const;
  };
  const [arrival, arrived] = event();
  const [closing, closed] = event();
  const [released, release] = event();
  const slow = new Hono();
  const edge = createErrorEdge(silentLogger);
  slow.use(requestId());
  slow.use(journalRequests({ journal: gone, clock, operationOf: () => 'op', onError: edge }));
  slow.onError(edge);
  slow.post('/slow', async (c) => {
    (c.env as { outgoing: ServerResponse }).outgoing.once('close', closed);
    arrived();
    await released;
    // The body never ends: its reader refuses it as cut off (40002), into a closed connection.
    return c.text(await readBodyText(c));
  });
  const server = await serve(slow);
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write(
      'POST /slow HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"a"',
    );
    await arrival;
    socket.destroy();
    await closing;
    release();
    await recorded;
    const [entry] = gone.list();
    assert.equal(entry?.status, 0);
    assert.equal(entry?.code, undefined);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
