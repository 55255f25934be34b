import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { rawExchange } from '../helpers/raw-exchange.js';

/** What only a real socket shows: requests Node's HTTP parser rejects before any route runs. */

let dir: string;
let store: Store;
let server: RunningServer;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-server-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
  server = await startServer({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 3600, trustProxy: false },
  });
});
after(async () => {
  await server.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const exchange = (text: string) => rawExchange(server.port, text);

test('oversized headers get a 431 ErrorMessage, not a bare status line', async () => {
  const response = await fetch(`${server.url}/healthz`, { headers: { 'x-big': 'a'.repeat(20_000) } });
  assert.equal(response.status, 431);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body['status'], '431');
  assert.equal(body['code'], 43101);
  assert.equal(typeof body['requestId'], 'string');
});

test('a request that is not HTTP gets a 400 ErrorMessage', async () => {
  const answer = await exchange('GARBAGE\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request/);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  assert.equal(body['code'], 40001);
});

test('a request without Host, or whose target is no URL, gets an ErrorMessage; HTTP/1.0 may leave Host out', async () => {
  const bodyOf = (answer: string) =>
    JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  const noHost = await exchange('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
  assert.match(noHost, /^HTTP\/1\.1 400 /);
  assert.equal(bodyOf(noHost)['fieldName'], 'Host');
  assert.equal(typeof bodyOf(noHost)['requestId'], 'string');
  const star = await exchange('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(star, /^HTTP\/1\.1 400 /);
  assert.equal(bodyOf(star)['code'], 40001);
  const old = await exchange('GET /healthz HTTP/1.0\r\n\r\n');
  assert.match(old, /^HTTP\/1\.1 200 /);
  assert.deepEqual(bodyOf(old), { status: 'ok' });
});

test('the issuer defaults to the bound address', async () => {
  assert.equal(server.publicUrl, `http://127.0.0.1:${server.port}`);
  const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as {
    issuer: string;
  };
  assert.equal(metadata.issuer, server.publicUrl);
});

test('a chunked token request over 64 KiB gets the OAuth 413 once the limit passes, not a cut connection', async () => {
  const chunk = new TextEncoder().encode(`grant_type=client_credentials&padding=${'x'.repeat(16_000)}`);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Far past the limit: the server answers without reading it all.
      if (sent++ < 64) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const response = await fetch(`${server.url}/authentication/v1/authentication/customer/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    duplex: 'half',
  } as RequestInit);
  assert.equal(response.status, 413);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const answer = (await response.json()) as Record<string, unknown>;
  assert.equal(answer['error'], 'invalid_request');
});

test('--shutdown-delay: once a stop begins, /readyz answers 503 while the server still serves; then it closes', async () => {
  const own = await mkdtemp(join(tmpdir(), 'larder-delay-'));
  const delayed = await createSqliteStore({ path: join(own, 'larder.db') });
  const running = await startServer({
    store: delayed,
    clock: systemClock,
    logger: silentLogger,
    config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 3600, trustProxy: false, shutdownDelayMs: 400 },
  });
  try {
    assert.equal((await fetch(`${running.url}/readyz`)).status, 200);
    const stopping = running.stop();
    const ready = await fetch(`${running.url}/readyz`, { headers: { connection: 'close' } });
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { code: number }).code, 50301);
    assert.equal((await fetch(`${running.url}/healthz`, { headers: { connection: 'close' } })).status, 200);
    await stopping;
    await assert.rejects(fetch(`${running.url}/healthz`));
  } finally {
    await delayed.close();
    await rm(own, { recursive: true, force: true });
  }
});
