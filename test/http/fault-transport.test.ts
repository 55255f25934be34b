import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { createMetrics } from '../../src/shared/metrics.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const ADMIN = 'admin-secret-token-0123';
/** Faultable (not one of Larder's own pages, which are never faulted) and public: the authorization server metadata. */
const METADATA = '/.well-known/oauth-authorization-server';

interface Outcome {
  status?: number | undefined;
  headers?: Record<string, string | string[] | undefined>;
  chunks: Buffer[];
  /** The connection failed: ECONNRESET before a response, or the body was cut. */
  error?: NodeJS.ErrnoException;
  elapsedMs: number;
}

/** One request on its own connection, with every byte and failure the client sees. */
const send = (url: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  new Promise<Outcome>((resolve) => {
    const started = performance.now();
    const outcome: Outcome = { chunks: [], elapsedMs: 0 };
    const done = () => {
      outcome.elapsedMs = performance.now() - started;
      resolve(outcome);
    };
    const req = request(`${url}${path}`, { method, headers: { connection: 'close', ...headers } }, (res) => {
      outcome.status = res.statusCode;
      outcome.headers = res.headers;
      res.on('data', (chunk: Buffer) => outcome.chunks.push(chunk));
      res.on('error', (error) => {
        outcome.error = error;
      });
      res.on('close', done);
    });
    req.on('error', (error) => {
      outcome.error = error;
      done();
    });
    req.end();
  });

const bodyOf = (outcome: Outcome) => Buffer.concat(outcome.chunks);

describe('transport-level faults on a real socket', () => {
  let running: TestServer;
  let server: RunningServer;
  before(async () => {
    running = await startTestServer({ config: { adminToken: ADMIN, allowFaultHeader: true } });
    server = running.server;
  });
  after(async () => {
    await running.stop();
  });

  test('reset: the connection is reset before any byte, and the journal says so', async () => {
    const outcome = await send(server.url, '/.well-known/jwks.json', { 'larder-fault': 'reset' });
    assert.equal(outcome.status, undefined);
    assert.equal(outcome.error?.code, 'ECONNRESET');
    const journal = await send(server.url, '/_larder/requests?limit=1', { authorization: `Bearer ${ADMIN}` });
    const [entry] = (JSON.parse(bodyOf(journal).toString()) as { requests: Record<string, unknown>[] })
      .requests;
    assert.equal(entry?.['status'], 0);
    assert.equal(entry?.['fault'], 'header reset');
  });

  test('cutBody: the full Content-Length is announced, half the body arrives, then the connection closes', async () => {
    const whole = await send(server.url, METADATA);
    const length = bodyOf(whole).length;
    assert.ok(length > 200);
    const cut = await send(server.url, METADATA, { 'larder-fault': 'cut-body' });
    assert.equal(cut.status, 200);
    assert.equal(cut.headers?.['content-length'], String(length));
    assert.equal(bodyOf(cut).length, Math.floor(length / 2));
    assert.deepEqual(bodyOf(cut), bodyOf(whole).subarray(0, Math.floor(length / 2)));
    assert.ok(cut.error !== undefined, 'the client sees the body end early');
  });

  test('slowBody: the whole body, in slices, at about the rate asked', async () => {
    const fast = await send(server.url, '/no-such-path');
    const length = bodyOf(fast).length;
    const bytesPerSecond = 500;
    const slow = await send(server.url, '/no-such-path', { 'larder-fault': `slow-body=${bytesPerSecond}` });
    assert.equal(slow.status, 404);
    assert.equal(slow.error, undefined);
    const body = JSON.parse(bodyOf(slow).toString()) as { code: number };
    assert.equal(body.code, 40402);
    const slices = Math.ceil(length / (bytesPerSecond / 10));
    assert.ok(slow.chunks.length >= 2, `${slow.chunks.length} chunks`);
    // Ten slices a second: the last is sent (slices - 1) × 100 ms after the first.
    assert.ok(slow.elapsedMs >= (slices - 1) * 100 - 20, `${slow.elapsedMs} ms for ${slices} slices`);
  });

  test('latency: the answer comes no sooner than asked', async () => {
    const delayed = await send(server.url, METADATA, { 'larder-fault': 'latency=300ms' });
    assert.equal(delayed.status, 200);
    assert.ok(delayed.elapsedMs >= 295, `${delayed.elapsedMs} ms`);
  });

  test('rules from the admin API reach the socket too: a reset for the next request only', async () => {
    const put = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${server.url}/_larder/faults`,
        { method: 'PUT', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ rules: [{ when: { next: 1 }, effect: { type: 'reset' } }] }));
    });
    assert.equal(put, 200);
    assert.equal((await send(server.url, METADATA)).error?.code, 'ECONNRESET');
    assert.equal((await send(server.url, METADATA)).status, 200);
  });
});

test('injected faults are the sandbox working, not the server failing: logged at info, counted as the client saw them', async () => {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, msg, fields });
  const metrics = createMetrics({ processMetrics: false });
  const running = await startTestServer({
    config: { adminToken: ADMIN, allowFaultHeader: true, metrics },
    logger: {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      enabled: () => true,
    },
  });
  try {
    const { url } = running.server;
    assert.equal((await send(url, METADATA, { 'larder-fault': 'status=503' })).status, 503);
    assert.equal((await send(url, METADATA, { 'larder-fault': 'reset' })).error?.code, 'ECONNRESET');
    assert.deepEqual(
      lines.filter((line) => line.level === 'error' || line.level === 'warn'),
      [],
    );
    const injected = lines.find((line) => line.msg === 'injected fault answered');
    assert.equal(injected?.level, 'info');
    assert.equal(injected?.fields['status'], 503);
    assert.ok(!('error' in (injected?.fields ?? {})), 'no stack for a fault asked for');
    const requests = lines.filter((line) => line.msg === 'request').map((line) => line.fields);
    assert.deepEqual(
      requests.map((fields) => [fields['status'], fields['fault']]),
      [
        [503, 'header status=503'],
        [0, 'header reset'],
      ],
    );
    const counted = await metrics.registry.getSingleMetricAsString('larder_http_requests_total');
    assert.match(counted, /status="0"\} 1/);
    assert.match(counted, /status="503"\} 1/);
    assert.doesNotMatch(counted, /status="500"/);
  } finally {
    await running.stop();
  }
});
