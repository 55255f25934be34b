import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp } from '../../src/server/app.js';
import { startServer } from '../../src/server/server.js';
import { createTestClock } from '../../src/shared/clock.js';
import { createLogger, silentLogger } from '../../src/shared/logger.js';
import type { Store } from '../../src/storage/store.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

/** The store, with the page-token secret held back until `release()`: the app cannot finish building before. */
const heldStore = (store: Store) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const settings = new Proxy(store.settings, {
    get: (target, property) =>
      property === 'pageTokenSecret'
        ? {
            ...target.pageTokenSecret,
            ensure: async (candidate: string) => {
              await gate;
              return target.pageTokenSecret.ensure(candidate);
            },
          }
        : Reflect.get(target, property),
  });
  const held = new Proxy(store, {
    get: (target, property) => (property === 'settings' ? settings : Reflect.get(target, property)),
  });
  return { store: held, release };
};

for (const backend of await backends()) {
  describeBackend(`health (${backend.name})`, backend, () => {
    let db: BackendInstance;
    before(async () => {
      db = await backend.create();
    });
    after(() => db.destroy());

    test('while starting, /healthz is 200 and /readyz (and the API) 503; then both 200', async () => {
      const { store, release } = heldStore(db.store);
      let bound!: (url: string) => void;
      const boundUrl = new Promise<string>((resolve) => {
        bound = resolve;
      });
      const logger = createLogger({
        level: 'debug',
        sink: {
          write: (line) => {
            const entry = JSON.parse(line) as { url?: string; msg: string };
            if (entry.msg.startsWith('bound;') && entry.url !== undefined) bound(entry.url);
          },
        },
      });
      const starting = startServer({
        store,
        clock: createTestClock(),
        logger,
        config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 3600, trustProxy: false },
      });
      const url = await boundUrl;
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const notReady = await fetch(`${url}/readyz`);
      assert.equal(notReady.status, 503);
      assert.equal(((await notReady.json()) as { canRetry: string }).canRetry, 'true');
      assert.equal((await fetch(`${url}/openapi.json`)).status, 503);
      release();
      const server = await starting;
      try {
        assert.equal((await fetch(`${url}/readyz`)).status, 200);
        assert.equal((await fetch(`${url}/healthz`)).status, 200);
      } finally {
        await server.stop();
      }
    });

    test('draining: /readyz answers 503 while /healthz stays 200', async () => {
      const larder = await createApp({
        store: db.store,
        clock: createTestClock(),
        logger: silentLogger,
        config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false },
      });
      const ready = await larder.app.request('/readyz');
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as { storage: string }).storage, backend.name);
      larder.drain();
      assert.equal((await larder.app.request('/readyz')).status, 503);
      assert.equal((await larder.app.request('/healthz')).status, 200);
    });

    test('/readyz is 503 when the store does not answer; the outage is logged once, not at every probe', async () => {
      let storeDown = true;
      const down = new Proxy(db.store, {
        get: (target, property) =>
          property === 'ping' && storeDown
            ? () => Promise.reject(new Error('connection refused'))
            : Reflect.get(target, property),
      });
      const lines: { level: string; msg: string }[] = [];
      const larder = await createApp({
        store: down,
        clock: createTestClock(),
        logger: createLogger({ level: 'info', sink: { write: (line) => lines.push(JSON.parse(line)) } }),
        config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false },
      });
      for (let probe = 0; probe < 3; probe++) assert.equal((await larder.app.request('/readyz')).status, 503);
      storeDown = false;
      assert.equal((await larder.app.request('/readyz')).status, 200);
      larder.drain();
      assert.equal((await larder.app.request('/readyz')).status, 503);
      assert.deepEqual(
        lines.filter((line) => line.msg !== 'auth signing keys loaded').map((line) => [line.level, line.msg]),
        [
          ['warn', 'not ready: the store does not answer'],
          ['info', 'ready again: the store answers'],
        ],
      );
    });
  });
}
