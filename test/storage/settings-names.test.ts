import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

/** The typed accessors read and write the names existing databases already hold, with the same text values. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-settings-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rawSettings = (path: string): Record<string, string> => {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare<[], { name: string; value: string }>('SELECT name, value FROM settings').all();
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  } finally {
    db.close();
  }
};

test('each accessor writes the stored name and text it always had', async () => {
  const path = join(dir, 'written.db');
  const store = await createSqliteStore({ path });
  try {
    await store.settings.pageTokenSecret.ensure('page-secret');
    await store.settings.clientSecretHashKey.ensure('hash-key');
    await store.settings.maxTokenTtlSeconds.set(3600);
    await store.settings.demoClient.set({ clientId: 'demo-id', clientSecret: 'demo-secret' });
    await store.settings.benchDataset.set('scale-1');
  } finally {
    await store.close();
  }
  assert.deepEqual(rawSettings(path), {
    page_token_secret: 'page-secret',
    'auth.clientSecretHashKey': 'hash-key',
    'auth.maxTokenTtlSeconds': '3600',
    'demo.clientId': 'demo-id',
    'demo.clientSecret': 'demo-secret',
    'bench.dataset': 'scale-1',
  });
});

test('a database written before the accessors existed reads the same values', async () => {
  const path = join(dir, 'existing.db');
  await (await createSqliteStore({ path })).close();
  const db = new Database(path);
  const insert = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?)');
  for (const [name, value] of [
    ['page_token_secret', 'old-page-secret'],
    ['auth.clientSecretHashKey', 'old-hash-key'],
    ['auth.maxTokenTtlSeconds', '86400'],
    ['demo.clientId', 'old-demo'],
    ['demo.clientSecret', 'old-secret'],
  ] as const)
    insert.run(name, value);
  db.close();
  const store = await createSqliteStore({ path });
  try {
    assert.equal(await store.settings.pageTokenSecret.ensure('new'), 'old-page-secret');
    assert.equal(await store.settings.clientSecretHashKey.ensure('new'), 'old-hash-key');
    assert.equal(await store.settings.maxTokenTtlSeconds.get(), 86400);
    assert.deepEqual(await store.settings.demoClient.get(), {
      clientId: 'old-demo',
      clientSecret: 'old-secret',
    });
    assert.equal(await store.settings.benchDataset.get(), undefined);
  } finally {
    await store.close();
  }
});
