import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { createApp } from '../../src/server/app.js';
import { startServer } from '../../src/server/server.js';
import { createTestClock } from '../../src/shared/clock.js';
import { createLogger, silentLogger } from '../../src/shared/logger.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';
import { LOGIN, loginRequest } from '../auth/harness.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';
import { damageTable, fileWithOrders } from '../storage/damaged-file.js';

/**
 * The store, with the page-token secret held back until `release()`: the app cannot finish building before;
 * after `fail()` it never does.
 */
const heldStore = (store: Store) => {
  let release!: () => void;
  let fail!: () => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = () => reject(new Error('the database went away'));
  });
  // Failed before the app asked for the secret, the gate has no reader yet.
  gate.catch(() => {});
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
  return { store: held, release, fail };
};

/**
 * Starts a server on `store`; resolves once it is bound, with its URL, the start still under way, and a promise
 * kept once it has held two requests for its app.
 */
const startBound = async (store: Store, clusterWorker: boolean) => {
  let bound!: (url: string) => void;
  const boundUrl = new Promise<string>((resolve) => {
    bound = resolve;
  });
  let heldCount = 0;
  let bothHeld!: () => void;
  const twoHeld = new Promise<void>((resolve) => {
    bothHeld = resolve;
  });
  const logger = createLogger({
    level: 'debug',
    sink: {
      write: (line) => {
        const entry = JSON.parse(line) as { url?: string; msg: string };
        if (entry.msg.startsWith('bound;') && entry.url !== undefined) bound(entry.url);
        if (entry.msg === 'request held until the app is built' && ++heldCount === 2) bothHeld();
      },
    },
  });
  const starting = startServer({
    store,
    clock: createTestClock(),
    logger,
    config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 3600, trustProxy: false, clusterWorker },
  });
  return { url: await boundUrl, starting, twoHeld };
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
      const { url, starting } = await startBound(store, false);
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

    /** Starts a cluster worker, sends two requests while its app is held back, then ends the hold. */
    const holdAWorker = async (outcome: 'built' | 'fails') => {
      const { store, release, fail } = heldStore(db.store);
      const { url, starting, twoHeld } = await startBound(store, true);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const held = [fetch(`${url}/readyz`), fetch(`${url}/openapi.json`)];
      // Answered at once (with "Starting up") if not held: the caller's assertion then says so.
      await Promise.race([twoHeld, Promise.all(held)]);
      if (outcome === 'fails') {
        fail();
        await assert.rejects(starting, /went away/);
      } else release();
      const statuses = (await Promise.all(held)).map((response) => response.status);
      if (outcome === 'built') await (await starting).stop();
      return statuses;
    };

    test('a cluster worker holds requests that arrive while it starts and answers them once built', async () => {
      assert.deepEqual(await holdAWorker('built'), [200, 200]);
    });

    test('a cluster worker that fails to start answers the requests it held with 503', async () => {
      assert.deepEqual(await holdAWorker('fails'), [503, 503]);
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

test('a damaged SQLite file: once a request finds it (500), /readyz answers 503 saying so, logged once at error with the file and what to do', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-damaged-'));
  const path = join(dir, 'larder.db');
  const location = await fileWithOrders(path);
  const store = await openStore({ db: path });
  const lines: { level: string; msg: string; error?: { message: string } }[] = [];
  try {
    const clock = createTestClock(Date.UTC(2025, 0, 1));
    const client = await createClientCredentials(store, { name: 'reader', locations: [location] }, clock);
    const { app } = await createApp({
      store,
      clock,
      logger: createLogger({ level: 'info', sink: { write: (line) => lines.push(JSON.parse(line)) } }),
      config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false },
    });
    const login = (await (await app.request(LOGIN, loginRequest(client))).json()) as {
      token: { accessToken: string };
    };
    assert.equal((await app.request('/readyz')).status, 200);

    await damageTable(path, 'purchase_orders');
    // Its ping reads a sound page: until a request reads the damaged ones, nothing can tell.
    assert.equal((await app.request('/readyz')).status, 200);
    const search = () =>
      app.request('/v1/purchaseOrders/search', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${login.token.accessToken}`,
          'content-type': 'application/json',
          'Platform-Restaurant-External-ID': location,
        },
        body: '{}',
      });
    // Each request that reads the damage is a 500 that says so; the server log has it in full once, not per request.
    for (let attempt = 0; attempt < 3; attempt++) {
      const failed = await search();
      assert.equal(failed.status, 500);
      const body = (await failed.json()) as Record<string, unknown>;
      assert.deepEqual(
        { ...body, requestId: body['requestId'] === failed.headers.get('x-request-id') },
        {
          status: '500',
          code: 50001,
          message:
            'The database file is damaged or was replaced; the server log says which file and what to do.',
          requestId: true,
          canRetry: 'true',
        },
      );
    }
    assert.deepEqual(
      lines.filter((line) => line.level === 'error').map((line) => line.msg),
      ['request failed'],
    );

    for (let probe = 0; probe < 3; probe++) {
      const ready = await app.request('/readyz');
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as Record<string, unknown>;
      assert.deepEqual(
        { ...body, requestId: typeof body['requestId'] },
        {
          status: '503',
          code: 50301,
          message:
            'The database file is damaged or was replaced; the server log says which file and what to do.',
          requestId: 'string',
          canRetry: 'true',
        },
      );
    }
    const said = lines.filter((line) => line.msg.startsWith('not ready'));
    assert.deepEqual(
      said.map((line) => [line.level, line.msg]),
      [
        [
          'error',
          'not ready: the database file is damaged or was replaced; writes are refused, and reads of what is damaged fail, until the server is restarted on a sound file',
        ],
      ],
    );
    const advice = said[0]?.error?.message ?? '';
    assert.ok(advice.includes(path), advice);
    assert.match(
      advice,
      /restore it from a backup, or save what SQLite can still read with `sqlite3 .+ \.recover/,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
