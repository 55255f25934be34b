import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, larder, larderToHead, startServe } from '../helpers/cli.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';

const T = Date.parse('2024-06-01T00:00:00Z');
const orders = Array.from({ length: 3 }, (_, i) => purchaseOrderFixture(i, { modifiedAt: T + i }));
const entries = Array.from({ length: 2 }, (_, i) => inventoryFixture(i, { modifiedAt: T + i }));

describe('larder CLI end to end', () => {
  let dir: string;
  let db: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-e2e-'));
    db = join(dir, 'larder.db');
    await writeFile(join(dir, 'po.ndjson'), orders.map((order) => JSON.stringify(order)).join('\n'));
    await writeFile(join(dir, 'ih.json'), JSON.stringify(entries, null, 2));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('an invalid import stores nothing, exits non-zero and prints FILE:LINE field: message', async () => {
    const bad = join(dir, 'bad.ndjson');
    await writeFile(
      bad,
      `${JSON.stringify(orders[0])}\n${JSON.stringify({ ...orders[1], status: 'LOST' })}\n`,
    );
    const run = await larder(['import', '--db', db, '--location', 'loc-e2e', '--purchase-orders', bad]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`${bad.replaceAll('/', '\\/')}:2 status: must be one of`));
    const list = await larder(['locations', 'list', '--db', db, '--json']);
    assert.equal(list.code, 1);
    assert.match(list.stderr, /No database at .*Nothing was created/);
  });

  test('a file of the other kind is its one problem, naming the flag to give it with', async () => {
    const [po, ih] = [join(dir, 'po.ndjson'), join(dir, 'ih.json')];
    const problems = async (flag: string, file: string) => {
      const run = await larder(['import', '--db', db, '--location', 'loc-swapped', flag, file]);
      assert.equal(run.code, 1);
      return run.stderr;
    };
    assert.equal(
      await problems('--inventory-history', po),
      `${po}:0 (file): looks like purchase orders, not inventory entries: give it with --purchase-orders\n1 problem(s); nothing was imported.\n`,
    );
    assert.equal(
      await problems('--purchase-orders', ih),
      `${ih}:0 (file): looks like inventory entries, not purchase orders: give it with --inventory-history\n1 problem(s); nothing was imported.\n`,
    );
    // Both given the wrong way round: each file is told, and nothing more.
    const swapped = await larder([
      'import',
      '--db',
      db,
      '--location',
      'loc-swapped',
      '--purchase-orders',
      ih,
      '--inventory-history',
      po,
    ]);
    assert.equal(swapped.code, 1);
    assert.deepEqual(swapped.stderr.split('\n'), [
      `${ih}:0 (file): looks like inventory entries, not purchase orders: give it with --inventory-history`,
      `${po}:0 (file): looks like purchase orders, not inventory entries: give it with --purchase-orders`,
      '2 problem(s); nothing was imported.',
      '',
    ]);
  });

  /** An import of `orders` and `entries` into loc-twice. */
  const importBoth = (orders: string, entries: string) => [
    'import',
    '--db',
    db,
    '--location',
    'loc-twice',
    '--purchase-orders',
    orders,
    '--inventory-history',
    entries,
  ];

  test('one file given for both kinds, however spelt, is a usage error naming both flags', async () => {
    const run = await larder(importBoth('po.ndjson', './po.ndjson'), {}, dir);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr.split('\n')[0],
      `larder import: --purchase-orders po.ndjson and --inventory-history ./po.ndjson are the same file (${join(await realpath(dir), 'po.ndjson')}): a file holds one kind. Give each kind its own file.`,
    );
  });

  test('standard input given for both kinds (`-` and /dev/stdin) is a usage error naming both flags', async () => {
    const child = spawn(process.execPath, [BIN, ...importBoth('-', '/dev/stdin')], {
      cwd: dir,
      stdio: [openSync(join(dir, 'po.ndjson'), 'r'), 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'close');
    assert.equal(code, 2);
    assert.equal(
      stderr.split('\n')[0],
      `larder import: --purchase-orders - and --inventory-history /dev/stdin are the same file (${join(await realpath(dir), 'po.ndjson')}): a file holds one kind. Give each kind its own file.`,
    );
  });

  test('a reader that stops early (`larder openapi | head`) ends the command quietly, exit 0', async () => {
    // The document is far larger than a pipe holds: the command is still writing when the reader goes.
    assert.deepEqual(await larderToHead(['openapi']).closed, { code: 0, stderr: '' });
  });

  test("a reader that stops early (`larder check | head`) keeps check's exit code: 1 on findings, no stack", async () => {
    // Every entry below zero on hand: thousands of finding lines, far more than a pipe holds, so check is still
    // writing when its reader goes.
    const negative = Array.from({ length: 3000 }, (_, i) => {
      const entry = inventoryFixture(i, { modifiedAt: T + i });
      return JSON.stringify({ ...entry, quantityInfo: { ...entry.quantityInfo, quantityOnHand: -1 } });
    });
    const file = join(dir, 'negative.ndjson');
    await writeFile(file, `${negative.join('\n')}\n`);
    const checked = join(dir, 'checked.db');
    const flags = ['--db', checked, '--location', 'loc-neg'];
    const imported = await larder(['import', ...flags, '--inventory-history', file]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(await larderToHead(['check', '--db', checked]).closed, { code: 1, stderr: '' });
  });

  test('import, create a client, serve, log in, search, and stop on SIGTERM', async () => {
    const imported = await larder([
      'import',
      '--db',
      db,
      '--location',
      'loc-e2e',
      '--name',
      'E2E Kitchen',
      '--purchase-orders',
      join(dir, 'po.ndjson'),
      '--inventory-history',
      join(dir, 'ih.json'),
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /Imported 3 purchase orders and 2 inventory history entries/);

    const locations = JSON.parse((await larder(['locations', 'list', '--json'], { LARDER_DB: db })).stdout);
    assert.deepEqual(
      locations.map((l: Record<string, unknown>) => [l['id'], l['name'], l['purchaseOrders']]),
      [['loc-e2e', 'E2E Kitchen', 3]],
    );

    const created = await larder([
      'clients',
      'create',
      '--db',
      db,
      '--name',
      'e2e',
      '--locations',
      'loc-e2e',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const { clientId, clientSecret } = JSON.parse(created.stdout) as {
      clientId: string;
      clientSecret: string;
    };

    const server = await startServe(['--db', db, '--port', '0', '--no-demo']);
    try {
      const login = await fetch(`${server.url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
      });
      assert.equal(login.status, 200);
      const session = (await login.json()) as { status: string; token: { accessToken: string } };
      assert.equal(session.status, 'SUCCESS');

      const headers = {
        authorization: `Bearer ${session.token.accessToken}`,
        'platform-restaurant-external-id': 'loc-e2e',
        'content-type': 'application/json',
      };
      const search = await fetch(`${server.url}/v1/purchaseOrders/search`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      assert.equal(search.status, 200);
      const page = (await search.json()) as { data: { id: string }[]; nextPageToken: string };
      assert.deepEqual(
        page.data.map((order) => order.id),
        orders.map((order) => order.id),
      );
      const one = await fetch(`${server.url}/v1/inventoryHistory/${entries[1]!.inventoryHistoryLogId}`, {
        headers,
      });
      assert.equal(await one.text(), JSON.stringify(entries[1]));

      const other = await fetch(`${server.url}/v1/purchaseOrders/search`, {
        method: 'POST',
        headers: { ...headers, 'platform-restaurant-external-id': 'loc-other' },
        body: '{}',
      });
      assert.equal(other.status, 403);
    } finally {
      const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve));
      server.child.kill('SIGTERM');
      assert.equal(await exited, 0, server.output());
    }
  });
});
