import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runNode } from '../../../test/helpers/cli.js';
import { inventoryFixture, purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import { ADMIN_TOKEN, type Larder, startLarder } from './larder.js';

/** The example integration, run as a user runs it (a process importing the built package), against Larder. */

const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'sync-inventory.ts');
const SUITE = join(import.meta.dirname, '..', 'examples', 'sandbox-suite.ts');
const README = join(import.meta.dirname, '..', 'README.md');
let larder: Larder;
let dir: string;
let env: Record<string, string>;
before(async () => {
  larder = await startLarder();
  dir = await mkdtemp(join(tmpdir(), 'larder-example-'));
  const now = await larder.clockNow();
  await larder.load(
    'kitchen',
    'inventoryHistory',
    Array.from({ length: 250 }, (_, n) => inventoryFixture(n + 1, { modifiedAt: now - 86_400_000 + n })),
  );
  const reader = await larder.createReader(['kitchen']);
  env = {
    LARDER_URL: larder.url,
    LARDER_CLIENT_ID: reader.clientId,
    LARDER_CLIENT_SECRET: reader.clientSecret,
    LARDER_LOCATION: 'kitchen',
  };
});
after(async () => {
  await larder.stop();
  await rm(dir, { recursive: true, force: true });
});

test('examples/sync-inventory.ts copies a location, then fetches only what changed', async () => {
  const file = join(dir, 'copy.json');
  const run = () => runNode(['--import', 'tsx', EXAMPLE, file], { env });
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^250 changed, 250 kept, next sync from \d{4}-\d{2}-\d{2}\n$/);
  const now = await larder.clockNow();
  await larder.load('kitchen', 'inventoryHistory', [inventoryFixture(7, { modifiedAt: now })]);
  const second = await run();
  assert.match(second.stdout, /^1 changed, 250 kept/);
  const copy = JSON.parse(await readFile(file, 'utf8')) as {
    entries: Record<string, { modifiedDate: string }>;
  };
  assert.equal(
    Object.values(copy.entries).filter((e) => e.modifiedDate === new Date(now).toISOString()).length,
    1,
  );
  const refused = await runNode(['--import', 'tsx', EXAMPLE, file], {
    env: { ...env, LARDER_CLIENT_SECRET: 'wrong' },
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Larder said 401 \(code 40102/);
});

test('examples/sandbox-suite.ts, an integration test suite driving the sandbox, passes against Larder', async () => {
  const run = await runNode(['--import', 'tsx', '--test', '--test-reporter', 'tap', SUITE], {
    env: { LARDER_URL: larder.url, LARDER_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^# pass 1$/m);
  assert.match(run.stdout, /^# fail 0$/m);
});

test("the README's first example (Use) runs as written against Larder", async () => {
  const readme = await readFile(README, 'utf8');
  const block = /## Use\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block !== undefined, 'the README has a Use example');
  const june = Date.UTC(2025, 5, 2, 8);
  const order = purchaseOrderFixture(1, { modifiedAt: june });
  await larder.load('loc-linden-table', 'purchaseOrders', [order]);
  await larder.load(
    'loc-linden-table',
    'inventoryHistory',
    (['WASTED', 'COUNT', 'THEFT'] as const).map((adjustmentType, n) =>
      inventoryFixture(n + 1, { modifiedAt: june + n, adjustmentType }),
    ),
  );
  const reader = await larder.createReader(['loc-linden-table']);
  // Only what the reader cannot run as written: the package's name, the server's address and a real order id.
  const code = block
    .replace("'@larder/client'", JSON.stringify(join(import.meta.dirname, '..', 'src', 'index.ts')))
    .replace("'http://127.0.0.1:8080'", JSON.stringify(larder.url))
    .replace("'8c6f…'", JSON.stringify(order.id));
  const file = join(dir, 'use.mts');
  await writeFile(file, code);
  const run = await runNode(['--import', 'tsx', file], {
    env: { LARDER_CLIENT_ID: reader.clientId, LARDER_CLIENT_SECRET: reader.clientSecret },
  });
  assert.equal(run.code, 0, run.stderr);
  const entries = [1, 3].map((n) => inventoryFixture(n, { modifiedAt: june }));
  assert.equal(
    run.stdout,
    `${entries.map((entry) => `${entry.inventoryHistoryLogId} ${entry.quantityInfo.quantityOnHand}\n`).join('')}1 \n`,
  );
});
