import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { type MetricsEndpoint, startMetricsServer } from '../../src/server/metrics-server.js';
import type { RunningServer } from '../../src/server/server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** --max-connections and the header timeout, on a real socket: idle connections cannot pile up. */

const MAX_CONNECTIONS = 3;
const HEADERS_TIMEOUT_MS = 300;

let running: TestServer;
let server: RunningServer;

before(async () => {
  running = await startTestServer({
    config: { maxConnections: MAX_CONNECTIONS, headersTimeoutMs: HEADERS_TIMEOUT_MS },
  });
  server = running.server;
});
after(async () => {
  await running.stop();
});

interface Connection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  closed: Promise<void>;
}

const open = (port = server.port) =>
  new Promise<Connection>((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });

/** A keep-alive request answered on the connection: the server has it open and counted. */
const healthz = (connection: Connection) =>
  new Promise<string>((resolve) => {
    const before = connection.received().length;
    const onData = () => {
      const text = connection.received().slice(before);
      if (text.includes('"status":"ok"')) {
        connection.socket.off('data', onData);
        resolve(text);
      }
    };
    connection.socket.on('data', onData);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  });

test('connections over --max-connections are closed on arrival, and a freed slot is usable again', async () => {
  const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, open));
  for (const connection of held) assert.match(await healthz(connection), /^HTTP\/1\.1 200/);
  const extra = await open();
  extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  await extra.closed;
  assert.equal(extra.received(), '', 'the connection over the limit got no answer');

  held[0]?.socket.destroy();
  await held[0]?.closed;
  // The server notices the close asynchronously: retry until the freed slot is taken (bounded).
  let answered = '';
  for (let attempt = 0; attempt < 50 && answered === ''; attempt++) {
    const again = await open();
    again.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await again.closed;
    answered = again.received();
  }
  assert.match(answered, /^HTTP\/1\.1 200/);
  for (const connection of held) connection.socket.destroy();
});

test('a connection that sends no complete request head is closed after the header timeout', async () => {
  const silent = await open();
  const partial = await open();
  partial.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  const started = performance.now();
  await Promise.all([silent.closed, partial.closed]);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < HEADERS_TIMEOUT_MS + 3000, `closed after ${elapsed} ms`);
  assert.match(partial.received(), /^HTTP\/1\.1 408/);
});

test('the --metrics-port listener bounds its connections and request heads too', async () => {
  const metrics: MetricsEndpoint = await startMetricsServer(
    '127.0.0.1',
    0,
    { contentType: 'text/plain', render: async () => 'up 1\n' },
    { maxConnections: 2, headersTimeoutMs: HEADERS_TIMEOUT_MS },
  );
  try {
    const port = Number(new URL(metrics.url).port);
    const held = [await open(port), await open(port)];
    const extra = await open(port);
    await extra.closed;
    assert.equal(extra.received(), '', 'the connection over the limit got no answer');
    held[1]?.socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    const started = performance.now();
    await Promise.all(held.map((connection) => connection.closed));
    const elapsed = performance.now() - started;
    assert.ok(elapsed < HEADERS_TIMEOUT_MS + 3000, `closed after ${elapsed} ms`);
    assert.match(held[1]?.received() ?? '', /^HTTP\/1\.1 408/);
  } finally {
    await metrics.stop();
  }
});
