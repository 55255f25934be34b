import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LarderTransportError } from '@larder/client';
import { type Credentials, type Larder, startLarder } from '../../packages/client/test/larder.js';
import { makeDevelopmentCertificate } from '../../src/cli/tls.js';
import { pullLocation } from '../../src/pull/pull-location.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { refusedPort, startPullSource, storedTexts, testCertificate } from '../helpers/pull-source.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

/** `larder pull` in process: a real source Larder over HTTP, into each backend. */

/**
 * The client's sleep on a virtual clock: a wait ends at the next turn of the event loop, unless its signal aborts it
 * first, and `waited` adds up the waits that ran to their end.
 */
const virtualSleep = () => {
  let waited = 0;
  return {
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          clearImmediate(wake);
          reject(signal?.reason);
        };
        const wake = setImmediate(() => {
          signal?.removeEventListener('abort', onAbort);
          waited += ms;
          resolve();
        });
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    waited: () => waited,
  };
};

for (const backend of await backends()) {
  describeBackend(`larder pull (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let source: Larder;
    let reader: Credentials;
    let base: number;
    before(async () => {
      db = await backend.create();
      ({ source, reader, base } = await startPullSource());
    });
    after(async () => {
      await source.stop();
      await db.destroy();
    });
    const pull = (intoLocation: string, extra: Partial<Parameters<typeof pullLocation>[1]> = {}) =>
      pullLocation(db.store, {
        from: source.url,
        ...reader,
        location: 'src-loc',
        intoLocation,
        ...extra,
      });

    test('the first pull copies the location byte for byte; the next only what changed, from the watermark', async () => {
      await source.sandbox.requests.clear();
      const first = await pull('mine');
      assert.deepEqual(first.counts, { purchaseOrders: 30, inventoryEntries: 1200 });
      assert.deepEqual(first.started, { purchaseOrders: 'all', inventoryHistory: 'all' });
      assert.deepEqual(await storedTexts(db.store, 'mine'), await storedTexts(source.store, 'src-loc'));
      const stored = await db.store.settings.pullState('mine').get();
      assert.equal(stored?.from, source.url);
      assert.equal(
        stored?.watermarks.inventoryHistory?.day,
        new Date(base + 1199 * 60_000).toISOString().slice(0, 10),
      );

      const now = await source.clockNow();
      await source.load(
        'src-loc',
        'purchaseOrders',
        [1, 2, 3].map((n) => purchaseOrderFixture(n, { modifiedAt: now + n, status: 'RECEIVED' })),
      );
      await source.load(
        'src-loc',
        'inventoryHistory',
        [1201, 1202].map((n) => inventoryFixture(n, { modifiedAt: now + n })),
      );
      await source.sandbox.requests.clear();
      const second = await pull('mine');
      assert.deepEqual(second.counts, { purchaseOrders: 3, inventoryEntries: 2 });
      assert.deepEqual(await storedTexts(db.store, 'mine'), await storedTexts(source.store, 'src-loc'));
      const journal = await source.journal();
      assert.equal(journal.filter((e) => e.operation === 'authenticationLoginPost').length, 1);
      const searches = journal.filter((e) => e.operation?.startsWith('search'));
      assert.ok(searches.length >= 2);
      for (const search of searches)
        assert.ok(
          (search as { body?: { updatedDateRange?: unknown } }).body?.updatedDateRange,
          'incremental',
        );
      assert.deepEqual(await source.report(reader.clientId), []);
    });

    test('a run that fails stores nothing and keeps the last watermark; the next run resumes', async () => {
      const before = await db.store.settings.pullState('mine').get();
      const now = await source.clockNow();
      await source.load(
        'src-loc',
        'inventoryHistory',
        Array.from({ length: 700 }, (_, n) => inventoryFixture(2000 + n, { modifiedAt: now + n })),
      );
      const controller = new AbortController();
      await assert.rejects(
        pull('mine', {
          signal: controller.signal,
          pageSize: 100,
          onProgress: (count) => {
            if (count === 300) controller.abort();
          },
        }),
        { name: 'AbortError' },
      );
      assert.deepEqual(await db.store.settings.pullState('mine').get(), before);
      const [, entries] = await storedTexts(db.store, 'mine');
      assert.equal(entries?.length, 1202, 'nothing of the failed run');
      const fresh = await pull('fresh', {
        signal: AbortSignal.abort(),
      }).catch((error: unknown) => error);
      assert.equal((fresh as Error).name, 'AbortError');
      assert.equal(await db.store.settings.pullState('fresh').get(), undefined);
      const resumed = await pull('mine');
      assert.deepEqual(resumed.counts, { purchaseOrders: 0, inventoryEntries: 700 });
      assert.deepEqual(await storedTexts(db.store, 'mine'), await storedTexts(source.store, 'src-loc'));
    });

    test('from a source with rate limits and faults on, the copy is still exact and the report empty', async () => {
      const faulty = await startPullSource({
        server: {
          rateLimit: [{ limit: 5, windowMs: 1000 }],
          faults: [
            {
              id: 'limited',
              match: { operation: 'searchInventoryHistory' },
              when: { next: 1 },
              effect: { type: 'status', status: 429, retryAfterSeconds: 2 },
            },
            {
              id: 'unavailable',
              match: { operation: 'searchInventoryHistory' },
              when: { every: 3 },
              effect: { type: 'status', status: 503 },
            },
            {
              id: 'reset',
              match: { operation: 'searchPurchaseOrders' },
              when: { next: 1 },
              effect: { type: 'reset' },
            },
            {
              id: 'cut',
              match: { operation: 'searchInventoryHistory' },
              when: { every: 5 },
              effect: { type: 'cutBody' },
            },
          ],
        },
      });
      try {
        const time = await faulty.source.virtualTime();
        const result = await pullLocation(db.store, {
          from: faulty.source.url,
          ...faulty.reader,
          location: 'src-loc',
          intoLocation: 'from-faulty',
          pageSize: 100,
          client: { now: time.now, sleep: time.sleep },
        });
        assert.deepEqual(result.counts, { purchaseOrders: 30, inventoryEntries: 1200 });
        assert.deepEqual(
          await storedTexts(db.store, 'from-faulty'),
          await storedTexts(faulty.source.store, 'src-loc'),
        );
        const journal = await faulty.source.journal();
        // Paced by the rate-limit headers to 5 requests a second: the only 429 is the injected one.
        assert.equal(journal.filter((e) => e.status === 429).length, 1);
        const answered = journal.filter((e) => e.status === 200).length;
        assert.ok(time.waited() >= (answered / 5 - 1) * 1000, `${time.waited()} ms for ${answered} requests`);
        assert.ok(journal.some((e) => e.status === 503) && journal.some((e) => e.status === 0));
        assert.deepEqual(await faulty.source.report(faulty.reader.clientId), []);
      } finally {
        await faulty.source.stop();
      }
    });

    test('a source that cannot be reached at all fails at once, naming it and the cause, with nothing stored', async () => {
      const time = virtualSleep();
      const port = await refusedPort();
      // fetch refuses some ports itself (1 among them) before connecting: no retry reaches them either.
      for (const [from, cause] of [
        [`http://127.0.0.1:${port}`, `connect ECONNREFUSED 127.0.0.1:${port}`],
        [
          'http://127.0.0.1:1',
          'port 1 is one fetch refuses to connect to (a "bad port" of the Fetch standard, blocked by browsers too; ' +
            'nothing was sent): serve it on another port',
        ],
      ] as const) {
        const error = await pull('unreached', { from, client: { sleep: time.sleep } }).catch(
          (e: unknown) => e,
        );
        assert.ok(error instanceof LarderTransportError, String(error));
        assert.equal(error.message, `cannot reach ${from}: ${cause}`);
      }
      assert.equal(time.waited(), 0, 'no backoff waited out');
      assert.equal(await db.store.locations.get('unreached'), undefined);
      assert.equal(await db.store.settings.pullState('unreached').get(), undefined);
    });

    test('a source whose TLS cannot be trusted fails at once, naming it, the cause and what to do, nothing stored', async () => {
      const time = virtualSleep();
      // Larder serving HTTPS as `larder serve --tls self-signed` does, and with a certificate expired yesterday.
      const selfSigned = await startLarder({ server: { tls: await makeDevelopmentCertificate([]) } });
      const expired = await startLarder({ server: { tls: await testCertificate(['127.0.0.1'], -1) } });
      try {
        for (const [from, cause] of [
          [
            selfSigned.url,
            'self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT). To trust a private CA or a self-signed ' +
              'certificate (larder serve --tls self-signed), name its PEM file in NODE_EXTRA_CA_CERTS',
          ],
          [
            expired.url,
            "certificate has expired (CERT_HAS_EXPIRED). Renew the source's certificate, or check this machine's clock",
          ],
          [
            source.url.replace(/^http:/, 'https:'),
            'wrong version number (ERR_SSL_WRONG_VERSION_NUMBER). The source may speak plain HTTP: try http://',
          ],
        ] as const) {
          const error = await pull('untrusted', { from, client: { sleep: time.sleep } }).catch(
            (e: unknown) => e,
          );
          assert.ok(error instanceof LarderTransportError, String(error));
          assert.equal(error.message, `cannot connect securely to ${from}: ${cause}`);
        }
      } finally {
        await selfSigned.stop();
        await expired.stop();
      }
      assert.equal(time.waited(), 0, 'no backoff waited out');
      assert.equal(await db.store.locations.get('untrusted'), undefined);
      assert.equal(await db.store.settings.pullState('untrusted').get(), undefined);
    });

    test('once the source has answered, a refused connection is retried as before', async () => {
      const time = virtualSleep();
      let refused = 0;
      // The first search after the login finds the port closed, as while a source restarts.
      const flaky: typeof fetch = async (input, init) => {
        if (String(input).includes('/search') && refused++ === 0)
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
          });
        return fetch(input, init);
      };
      const result = await pull('after-refusal', { client: { fetch: flaky, sleep: time.sleep } });
      assert.ok(result.counts.purchaseOrders > 0);
      assert.deepEqual(
        await storedTexts(db.store, 'after-refusal'),
        await storedTexts(source.store, 'src-loc'),
      );
      assert.ok(time.waited() > 0, 'one backoff waited out');
    });

    test('--since starts from that day instead of the watermark; another location starts over', async () => {
      const since = await pull('mine', { since: '2000-01-01' });
      assert.deepEqual(since.started, { purchaseOrders: '2000-01-01', inventoryHistory: '2000-01-01' });
      assert.deepEqual(since.counts, { purchaseOrders: 30, inventoryEntries: 1902 });
      const other = await pull('other');
      assert.deepEqual(other.started, { purchaseOrders: 'all', inventoryHistory: 'all' });
      assert.deepEqual(await storedTexts(db.store, 'other'), await storedTexts(source.store, 'src-loc'));
    });

    test('a --since in the future, which finds nothing, is not kept as the watermark: the next run still gets what changes', async () => {
      const ahead = await pull('ahead', { since: '2999-01-01' });
      assert.deepEqual(ahead.counts, { purchaseOrders: 0, inventoryEntries: 0 });
      const now = await source.clockNow();
      const changed = purchaseOrderFixture(90, { modifiedAt: now, status: 'RECEIVED' });
      await source.load('src-loc', 'purchaseOrders', [changed]);
      await pull('ahead');
      const [orders] = await storedTexts(db.store, 'ahead');
      assert.ok(orders?.includes(JSON.stringify(changed)));
    });
  });
}
