import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

/** The SQLite file holds signing keys and secrets: it and its -wal/-shm are created owner-only. */

test('a new database and its -wal and -shm files are created 0600, whatever the umask allows', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-perms-'));
  const previous = process.umask(0o022);
  try {
    const path = join(dir, 'larder.db');
    const store = await createSqliteStore({ path });
    try {
      await store.settings.benchDataset.set('written');
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        const mode = (await stat(file)).mode & 0o777;
        assert.equal(mode.toString(8), '600', `${file} is ${mode.toString(8)}`);
      }
    } finally {
      await store.close();
    }
  } finally {
    process.umask(previous);
    await rm(dir, { recursive: true, force: true });
  }
});
