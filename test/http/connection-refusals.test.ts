import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { Schedule } from '../../src/server/cluster-supervisor.js';
import { capConnections } from '../../src/server/connection-cap.js';
import { startMetricsServer } from '../../src/server/metrics-server.js';
import { listen } from '../../src/server/server.js';
import { createLogger } from '../../src/shared/logger.js';
import { createMetrics } from '../../src/shared/metrics.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** What an operator sees of connections --max-connections refuses: a counter, a gauge and a bounded log. */

const MAX_CONNECTIONS = 2;

/** Timers that run only when the test says so: the log's interval passes without a real wait. */
const manualTime = () => {
  let tasks: { task: () => void; ms: number }[] = [];
  const schedule: Schedule = (task, ms) => {
    const entry = { task, ms };
    tasks.push(entry);
    return () => {
      tasks = tasks.filter((t) => t !== entry);
    };
  };
  /** Runs the timers scheduled so far (as if their interval had passed). */
  const fire = () => {
    const due = tasks;
    tasks = [];
    for (const { task } of due) task();
  };
  return { schedule, fire, pending: () => tasks.map((t) => t.ms) };
};

interface Line {
  level: string;
  msg: string;
  refused?: number;
  maxConnections?: number;
  listener?: string;
}

const captured = () => {
  const lines: Line[] = [];
  const logger = createLogger({
    level: 'warn',
    sink: { write: (line) => lines.push(JSON.parse(line) as Line) },
  });
  return { lines, logger };
};

const time = manualTime();
const log = captured();
const metrics = createMetrics({ processMetrics: false });
let running: TestServer;

before(async () => {
  running = await startTestServer({
    logger: log.logger,
    schedule: time.schedule,
    config: { maxConnections: MAX_CONNECTIONS, metrics },
  });
});
after(async () => {
  await running.stop();
});

const open = (port: number) =>
  new Promise<{ socket: Socket; closed: Promise<void> }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });

/** A connection the server has taken: its keep-alive request was answered. */
const held = async (port: number) => {
  const connection = await open(port);
  await new Promise<void>((resolve) => {
    connection.socket.on('data', (chunk) => {
      if (chunk.toString().includes('"status":"ok"')) resolve();
    });
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  return connection;
};

/** A connection over the cap: closed by the server on arrival (its handler has run by then). */
const refusedOne = async (port: number) => {
  const connection = await open(port);
  await connection.closed;
};

const sample = async (name: string) =>
  (await metrics.registry.getSingleMetric(name)?.get())?.values.map((value) => value.value);

test('refusals are counted, open connections measured, and the log says so once per interval, not per connection', async () => {
  const { port } = running.server;
  const connections = [await held(port), await held(port)];
  assert.deepEqual(await sample('larder_http_connections_open'), [MAX_CONNECTIONS]);
  assert.deepEqual(await sample('larder_http_connections_refused_total'), [0]);

  for (let i = 0; i < 5; i++) await refusedOne(port);
  assert.deepEqual(await sample('larder_http_connections_refused_total'), [5]);
  assert.deepEqual(await sample('larder_http_connections_open'), [MAX_CONNECTIONS]);
  // The first refusal at once, the four after it held for the interval's line.
  assert.equal(log.lines.length, 1);
  assert.equal(log.lines[0]?.level, 'warn');
  assert.equal(log.lines[0]?.refused, 1);
  assert.equal(log.lines[0]?.maxConnections, MAX_CONNECTIONS);
  assert.match(log.lines[0]?.msg ?? '', /--max-connections/);
  assert.deepEqual(time.pending(), [10_000]);

  time.fire();
  assert.equal(log.lines.length, 2);
  assert.equal(log.lines[1]?.refused, 4);
  assert.match(log.lines[1]?.msg ?? '', /4 more connections .*10 s.*--max-connections/);

  // A quiet interval logs nothing and ends the watch: the next refusal is told at once again.
  time.fire();
  assert.equal(log.lines.length, 2);
  assert.deepEqual(time.pending(), []);
  await refusedOne(port);
  assert.equal(log.lines.length, 3);
  assert.equal(log.lines[2]?.refused, 1);

  for (const connection of connections) connection.socket.destroy();
  await Promise.all(connections.map((connection) => connection.closed));
  // The server sees the closes asynchronously: a held connection's slot frees once it does.
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await sample('larder_http_connections_open'))?.[0] === 0) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await sample('larder_http_connections_open'), [0]);
});

test('the metrics listener logs its refusals the same way, naming itself, and counts them nowhere', async () => {
  const own = manualTime();
  const { lines, logger } = captured();
  const endpoint = await startMetricsServer(
    '127.0.0.1',
    0,
    { contentType: 'text/plain', render: async () => 'up 1\n' },
    { maxConnections: 1, logger, schedule: own.schedule },
  );
  try {
    const port = Number(new URL(endpoint.url).port);
    const kept = await open(port);
    await refusedOne(port);
    await refusedOne(port);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.listener, 'metrics');
    assert.match(lines[0]?.msg ?? '', /metrics listener/);
    own.fire();
    assert.equal(lines[1]?.refused, 1);
    await refusedOne(port);
    kept.socket.destroy();
  } finally {
    await endpoint.stop();
  }
  // Told when the listener closes rather than lost with its timer.
  assert.equal(lines.length, 3);
  assert.equal(lines[2]?.refused, 1);
  assert.deepEqual(own.pending(), []);
});

test("a --workers worker's line names its share of the cap, since that is what it holds", async () => {
  const { lines, logger } = captured();
  const server = createServer();
  capConnections(server, 0, {
    logger,
    listener: 'public',
    clusterWorker: true,
    schedule: manualTime().schedule,
  });
  const port = await listen(server, 0, '127.0.0.1');
  try {
    await refusedOne(port);
    assert.match(
      lines[0]?.msg ?? '',
      /0 connections are open on this worker, its share of the --max-connections cap/,
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
