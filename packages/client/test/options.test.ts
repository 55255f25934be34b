import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import { createClient, createSandbox, type Watermark } from '../src/index.js';
import { ADMIN_TOKEN, type Credentials, type Larder, startLarder } from './larder.js';

/**
 * Code compiled with exactOptionalPropertyTypes passes values that may be undefined (a saved watermark, an
 * environment variable) as they are: every option must accept undefined (checked by `tsc`, which compiles this
 * file) and take it as absent (checked here at run time).
 */

const T = Date.UTC(2025, 5, 2, 8);
const orders = [1, 2, 3].map((n) => purchaseOrderFixture(n, { modifiedAt: T + n }));

describe('options given as undefined', () => {
  let larder: Larder;
  let reader: Credentials;
  before(async () => {
    larder = await startLarder();
    await larder.load('loc-1', 'purchaseOrders', orders);
    reader = await larder.createReader(['loc-1']);
  });
  after(() => larder.stop());

  test('type-check wherever an option may be given, and mean absent', async () => {
    // As the README's sync reads it: a file that may not be there yet.
    const saved = await Promise.resolve<Watermark | undefined>(undefined);
    const unset: { [name: string]: string | undefined } = {};
    const client = createClient({
      baseUrl: larder.url,
      ...reader,
      authBaseUrl: unset['LARDER_AUTH_URL'],
      fetch: undefined,
      retry: undefined,
      timeoutMs: undefined,
      sleep: undefined,
      now: undefined,
      timeoutSignal: undefined,
    });
    const synced = [];
    for await (const order of client.purchaseOrders.sync({
      location: 'loc-1',
      since: saved,
      filter: undefined,
      pageSize: undefined,
      signal: undefined,
    }))
      synced.push(order.id);
    assert.equal(synced.length, 3);
    const searched = [];
    for await (const order of client.purchaseOrders.search(
      {},
      { location: 'loc-1', pageSize: undefined, pageToken: undefined, signal: undefined },
    ))
      searched.push(order.id);
    assert.deepEqual(searched, synced);

    const sandbox = createSandbox({
      baseUrl: larder.url,
      adminToken: ADMIN_TOKEN,
      fetch: undefined,
      timeoutMs: undefined,
    });
    const journal = await sandbox.requests.list({
      clientId: reader.clientId,
      location: undefined,
      operation: undefined,
      status: undefined,
      since: undefined,
      limit: undefined,
    });
    assert.equal(journal.length, 3, 'a login, a sync and a search');
    const set = await sandbox.clock.set(new Date(T), { frozen: undefined });
    assert.equal(set.frozen, false);
    const moved = await sandbox.clock.advance({
      days: undefined,
      hours: 1,
      minutes: undefined,
      seconds: undefined,
    });
    const hour = Date.parse(moved.now) - Date.parse(set.now);
    assert.ok(hour >= 3_600_000 && hour < 3_660_000, `an hour on (the clock runs): ${hour} ms`);
    await sandbox.clock.reset();
  });

  test('retry settings given as undefined keep their defaults', async () => {
    await larder.sandbox.faults.set([
      {
        match: { operation: 'searchPurchaseOrders' },
        when: { next: 1 },
        effect: { type: 'status', status: 503 },
      },
    ]);
    const time = await larder.virtualTime();
    const waits: number[] = [];
    const client = createClient({
      baseUrl: larder.url,
      ...reader,
      retry: {
        maxAttempts: undefined,
        baseDelayMs: undefined,
        maxDelayMs: undefined,
        maxElapsedMs: undefined,
      },
      now: time.now,
      sleep: async (ms) => {
        waits.push(ms);
        await time.sleep(ms);
      },
    });
    let count = 0;
    for await (const _ of client.purchaseOrders.search({}, { location: 'loc-1' })) count++;
    assert.equal(count, 3);
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! >= 1000 && waits[0]! <= 2000, `the default first backoff, 1–2 s: ${waits[0]}`);
    await larder.sandbox.faults.clear();
  });
});
