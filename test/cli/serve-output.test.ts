import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createServeOutput } from '../../src/cli/serve-output.js';
import { prepareDemo } from '../../src/sandbox/demo.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';

const TOKEN = 'operator-admin-token-0123456789';
const URL = 'http://127.0.0.1:8080';

let dir: string;
let empty: Store;
let demo: Store;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-banner-'));
  empty = await createSqliteStore({ path: join(dir, 'empty.db') });
  demo = await createSqliteStore({ path: join(dir, 'demo.db') });
  await prepareDemo(demo, createTestClock(Date.UTC(2025, 4, 1)), () => {});
});
after(async () => {
  await Promise.all([empty.close(), demo.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** The banner `larder serve` writes for this store and admin token, on a terminal or as the JSON line. */
const banner = async (store: Store, adminToken: string | undefined, terminal: boolean) => {
  let written = '';
  const output = createServeOutput(
    { logLevel: 'info', logFormat: 'json' },
    { stdout: (text) => (written += text), stderr: () => {}, env: {}, isTty: false, stdoutIsTty: terminal },
    { logger: silentLogger },
  );
  await output.banner(store, {
    url: URL,
    publicUrl: URL,
    workers: 1,
    ...(adminToken === undefined ? {} : { adminToken }),
  });
  return written;
};

test('an --admin-token start without a demo names the admin API and the console, never the token', async () => {
  const line = JSON.parse(await banner(empty, TOKEN, false)) as { admin?: { url: string; console: string } };
  assert.deepEqual(line.admin, { url: `${URL}/_larder/`, console: `${URL}/console` });
  const text = await banner(empty, TOKEN, true);
  assert.match(text, /Admin API \(with the --admin-token you gave\): http:\/\/127\.0\.0\.1:8080\/_larder\//);
  assert.match(text, /Console \(sign in with that token\): http:\/\/127\.0\.0\.1:8080\/console/);
  for (const written of [JSON.stringify(line), text]) assert.ok(!written.includes(TOKEN));
});

test('without an admin token nothing names the admin API; a demo start says it in its own part', async () => {
  assert.doesNotMatch(await banner(empty, undefined, true), /Admin API|Console/);
  assert.equal((JSON.parse(await banner(empty, undefined, false)) as { admin?: unknown }).admin, undefined);
  const demoLine = JSON.parse(await banner(demo, TOKEN, false)) as {
    admin?: unknown;
    demo?: { adminOn?: boolean };
  };
  assert.equal(demoLine.admin, undefined);
  assert.equal(demoLine.demo?.adminOn, true);
});
