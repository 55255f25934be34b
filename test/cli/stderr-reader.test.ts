import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/storage/open-store.js';
import { BIN, larder, larderStderrToHead } from '../helpers/cli.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { storedTexts } from '../helpers/pull-source.js';

/**
 * The real CLI with a reader of its standard error that stops early (`larder import … 2>&1 | head -1`): the messages
 * are lost, but nothing crashes, the command keeps its exit code, and an import stays all or nothing.
 */

const T = Date.parse('2024-06-01T00:00:00Z');

describe('a reader of standard error that stops early', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-stderr-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('an import whose problems outrun the reader exits 1, stores nothing and leaves no database', async () => {
    // 50 problem lines, each naming a file path of some 3,000 characters: far more than a pipe holds, so the
    // import is still writing them when its reader goes.
    let deep = dir;
    for (let level = 0; level < 12; level++) deep = join(deep, `${level}`.padEnd(240, 'x'));
    await mkdir(deep, { recursive: true });
    const bad = join(deep, 'bad.ndjson');
    await writeFile(bad, `${Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: i })).join('\n')}\n`);
    const db = join(dir, 'rejected.db');
    const run = await larderStderrToHead(
      ['import', '--db', db, '--location', 'loc-bad', '--purchase-orders', bad],
      { dir },
    );
    assert.deepEqual(run, { code: 1, stdout: '', uncaught: '' });
    assert.equal(existsSync(db), false, 'no database left behind');
  });

  test('an import that succeeds with `2>&1 | head -1` is whole: exit 0, every record stored', async () => {
    const file = join(dir, 'po.ndjson');
    const orders = Array.from({ length: 20 }, (_, i) => purchaseOrderFixture(i, { modifiedAt: T + i }));
    await writeFile(file, orders.map((order) => JSON.stringify(order)).join('\n'));
    const db = join(dir, 'imported.db');
    const run = await larderStderrToHead(
      ['import', '--db', db, '--location', 'loc-good', '--purchase-orders', file],
      { dir, mergeStderr: true },
    );
    assert.deepEqual(run, { code: 0, stdout: '', uncaught: '' });
    const store = await openStore({ db });
    try {
      const [stored] = await storedTexts(store, 'loc-good');
      assert.equal(stored?.length, 20);
    } finally {
      await store.close();
    }
  });

  test('`larder export … 2>&1 | head -1` that cost a file says so to nobody, exits 1, writes no file', async () => {
    const db = join(dir, 'export.db');
    const entries = join(dir, 'ih.ndjson');
    const lines = Array.from({ length: 1500 }, (_, i) =>
      JSON.stringify(inventoryFixture(i, { modifiedAt: T + i })),
    );
    await writeFile(entries, lines.join('\n'));
    const imported = await larder([
      'import',
      '--db',
      db,
      '--location',
      'loc-x',
      '--inventory-history',
      entries,
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    const orders = join(dir, 'po-export.ndjson');
    // Standard output, far more than a pipe holds, fails first; the message about the unwritten file follows on
    // standard error, into the same pipe, whose reader is gone by then.
    const run = await larderStderrToHead(
      ['export', '--db', db, '--location', 'loc-x', '--purchase-orders', orders, '--inventory-history', '-'],
      { dir, mergeStderr: true },
    );
    assert.deepEqual(run, { code: 1, stdout: '', uncaught: '' });
    assert.equal(existsSync(orders), false);
  });

  test('`larder serve` whose log reader went away stops on SIGTERM with exit code 0, not hanging', {
    timeout: 30_000,
  }, async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--db', join(dir, 'serve.db'), '--port', '0', '--no-demo'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const [banner] = (await once(child.stdout, 'data')) as [Buffer];
    const url = /"url":"([^"]+)"/.exec(banner.toString())?.[1];
    // Answered once the banner's turn is over: its signal handlers are in place.
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    // Every start-up line is written by now; the stop's lines meet a pipe nobody reads: the exit flush used to
    // retry that write every 100 ms, forever (sonic-boom 4 retries any error of a synchronous flush).
    child.stderr.destroy();
    await once(child.stderr, 'close');
    child.kill('SIGTERM');
    const [code, signal] = await once(child, 'exit');
    assert.deepEqual([code, signal], [0, null]);
  });

  test('standard error that cannot be written at all (a full disk) loses the message, not the exit code', {
    skip: !existsSync('/dev/full'),
  }, async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BIN, 'nope'], { stdio: ['ignore', 'ignore', full] });
      const [code] = await once(child, 'close');
      assert.equal(code, 2);
    } finally {
      closeSync(full);
    }
  });
});
