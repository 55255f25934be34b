import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runNode } from '../../../test/helpers/cli.js';
import { inventoryFixture, purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import { REPO } from '../../../test/helpers/repo.js';
import { ADMIN_TOKEN, type Larder, startLarder } from './larder.js';

/** The example integration, run as a user runs it (a process importing the built package), against Larder. */

const PACKAGE_DIR = join(REPO, 'packages', 'client');
const EXAMPLE = join(PACKAGE_DIR, 'examples', 'sync-inventory.ts');
const SUITE = join(PACKAGE_DIR, 'examples', 'sandbox-suite.ts');
const README = join(PACKAGE_DIR, 'README.md');
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
  assert.match(
    refused.stderr,
    /Larder said: .*\(401 POST http:\/\/127\.0\.0\.1:\d+\/authentication\/v1\/authentication\/login\); code 40102, request /,
  );
});

test('examples/sandbox-suite.ts, an integration test suite driving the sandbox, passes against Larder', async () => {
  const run = await runNode(['--import', 'tsx', '--test', '--test-reporter', 'tap', SUITE], {
    env: { LARDER_URL: larder.url, LARDER_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^# pass 1$/m);
  assert.match(run.stdout, /^# fail 0$/m);
});

/** The first `ts` block after `heading` in a README. */
const block = async (readme: string, heading: string): Promise<string> => {
  const text = await readFile(readme, 'utf8');
  const found = new RegExp(`\\n${heading}\\n[\\s\\S]*?\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1];
  assert.ok(found !== undefined, `${readme} has a ts block under ${heading}`);
  return found;
};

/** The package as the tests import it: its source, so a stale build cannot pass for it. */
const PACKAGE = JSON.stringify(join(PACKAGE_DIR, 'src', 'index.ts'));

/** Runs a README example with what the reader supplies around it first (an ES module: imports are hoisted). */
/** tsx as this repository has it: an example may run in a directory of its own (`--import` resolves from there). */
const TSX = import.meta.resolve('tsx');
let examples = 0;
const runExample = async (code: string, options: { env?: Record<string, string>; cwd?: string } = {}) => {
  const file = join(options.cwd ?? dir, `example-${++examples}.mts`);
  await writeFile(
    file,
    code
      .replaceAll("'@larder/client'", PACKAGE)
      .replaceAll("'http://127.0.0.1:8080'", 'process.env.LARDER_URL!'),
  );
  return runNode(['--import', TSX, file], {
    env: { ...env, ...options.env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
};

test("the README's first example (Use) runs as written against Larder", async () => {
  const code = await block(README, '## Use');
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
  const run = await runExample(code.replace("'8c6f…'", JSON.stringify(order.id)), {
    env: { LARDER_CLIENT_ID: reader.clientId, LARDER_CLIENT_SECRET: reader.clientSecret },
  });
  assert.equal(run.code, 0, run.stderr);
  const entries = [1, 3].map((n) => inventoryFixture(n, { modifiedAt: june }));
  assert.equal(
    run.stdout,
    `${entries.map((entry) => `${entry.inventoryHistoryLogId} ${entry.quantityInfo.quantityOnHand}\n`).join('')}1 \n`,
  );
});

test("the README's incremental sync copies a location, then resumes from the watermark it saved", async () => {
  const now = await larder.clockNow();
  const entries = Array.from({ length: 5 }, (_, n) =>
    inventoryFixture(n + 21, { modifiedAt: now - 3_600_000 + n }),
  );
  await larder.load('loc-linden-table', 'inventoryHistory', entries);
  const reader = await larder.createReader(['loc-linden-table']);
  // What the reader has already: a client, and where a record goes.
  const prelude = `import { createClient, type InventoryHistoryLogEntry } from '@larder/client';
const larder = createClient({ baseUrl: 'http://127.0.0.1:8080', clientId: process.env.LARDER_CLIENT_ID!, clientSecret: process.env.LARDER_CLIENT_SECRET! });
const upsert = (entry: InventoryHistoryLogEntry) => console.log(entry.inventoryHistoryLogId);
`;
  const code = prelude + (await block(README, '### Incremental sync'));
  const cwd = await mkdtemp(join(dir, 'sync-'));
  const sync = () =>
    runExample(code, {
      cwd,
      env: { LARDER_CLIENT_ID: reader.clientId, LARDER_CLIENT_SECRET: reader.clientSecret },
    });
  const first = await sync();
  assert.equal(first.code, 0, first.stderr);
  const yielded = first.stdout.trim().split('\n');
  for (const entry of entries) assert.ok(yielded.includes(entry.inventoryHistoryLogId));
  assert.equal(new Set(yielded).size, yielded.length, 'each once');
  const watermark = JSON.parse(await readFile(join(cwd, 'wm.json'), 'utf8')) as { day: string };
  assert.match(watermark.day, /^\d{4}-\d{2}-\d{2}$/);
  const second = await sync();
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, '', 'nothing changed since');
  await larder.load('loc-linden-table', 'inventoryHistory', [inventoryFixture(22, { modifiedAt: now })]);
  const third = await sync();
  assert.equal(third.stdout, `${entries[1]?.inventoryHistoryLogId}\n`);
});

test("the main README's TypeScript client example runs as written against Larder", async () => {
  const readme = join(REPO, 'README.md');
  await larder.load('loc-1', 'purchaseOrders', [
    purchaseOrderFixture(31, { modifiedAt: Date.UTC(2025, 5, 2, 8), archived: true }),
  ]);
  await larder.load('loc-1', 'inventoryHistory', [
    inventoryFixture(31, { modifiedAt: Date.UTC(2025, 5, 2, 8) }),
  ]);
  const reader = await larder.createReader(['loc-1']);
  const prelude = `import type { InventoryHistoryLogEntry, Watermark } from '@larder/client';
const clientId = process.env.LARDER_CLIENT_ID!;
const clientSecret = process.env.LARDER_CLIENT_SECRET!;
const savedWatermark: Watermark | undefined = undefined;
const save = (entry: InventoryHistoryLogEntry) => console.log(entry.inventoryHistoryLogId);
const saveWatermark = (watermark: Watermark | undefined) => console.log(watermark?.day);
`;
  const run = await runExample(prelude + (await block(readme, '## TypeScript client: @larder/client')), {
    env: { LARDER_CLIENT_ID: reader.clientId, LARDER_CLIENT_SECRET: reader.clientSecret },
  });
  assert.equal(run.code, 0, run.stderr);
  const order = purchaseOrderFixture(31, { modifiedAt: Date.UTC(2025, 5, 2, 8), archived: true });
  const entry = inventoryFixture(31, { modifiedAt: Date.UTC(2025, 5, 2, 8) });
  assert.equal(run.stdout, `${order.id} ${order.status}\n${entry.inventoryHistoryLogId}\n2025-06-02\n`);
});

test("the README's sandbox example drives the sandbox as written: a clean report for a well-behaved client", async () => {
  const orders = [1, 2, 3].map((n) => purchaseOrderFixture(n + 40, { modifiedAt: Date.UTC(2025, 4, 30) }));
  // What the reader supplies: the records, and the integration under test (here, one walk of the location).
  const code = `const orders = ${JSON.stringify(orders)};\n${(
    await block(README, '## Sandbox controls: `createSandbox\\(options\\)`')
  ).replace(
    '// … run the integration under test …',
    "for await (const order of larder.purchaseOrders.search({}, { location: 'kitchen' })) console.log(order.id);",
  )}`;
  try {
    const run = await runExample(code, { env: { LARDER_ADMIN_TOKEN: ADMIN_TOKEN } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, orders.map((order) => `${order.id}\n`).join(''));
    const { rules } = await larder.sandbox.faults.list();
    assert.deepEqual(
      rules.map((rule) => rule.effect),
      [{ type: 'status', status: 503 }],
    );
  } finally {
    // The example sets a frozen clock in 2025 and a fault: later tests get the real time back, and no fault.
    await larder.sandbox.faults.clear();
    await larder.sandbox.clock.reset();
    await larder.sandbox.requests.clear();
  }
});

test("the README's requests.follow example prints each 5xx as it is recorded, until its timer aborts it", async () => {
  const code = await block(README, '`requests\\.follow\\(filter, \\{ signal, intervalMs \\}\\)`[^\\n]*');
  // What the reader has: a sandbox. Its waits between polls, and the example's minute, are this test's clock: the
  // first wait makes a 5xx for the next poll to find, the second ends the minute, and no real time passes.
  const prelude = `import { createSandbox } from '@larder/client';
let minuteUp = () => {};
const setTimeout = (fire: () => void, ms: number) => {
  console.log(\`abort after \${ms} ms\`);
  minuteUp = fire;
};
let waits = 0;
const sandbox = createSandbox({
  baseUrl: 'http://127.0.0.1:8080',
  adminToken: process.env.LARDER_ADMIN_TOKEN!,
  sleep: async (ms) => {
    console.log(\`wait \${ms} ms\`);
    if (++waits === 1) await (await fetch(\`\${process.env.LARDER_URL}/v1/failing/2\`)).text();
    else minuteUp();
  },
});
`;
  await larder.sandbox.requests.clear();
  await larder.sandbox.faults.add({
    match: { pathPrefix: '/v1/failing' },
    effect: { type: 'status', status: 503 },
  });
  try {
    await (await fetch(`${larder.url}/v1/failing/1`)).text();
    const run = await runExample(prelude + code, { env: { LARDER_ADMIN_TOKEN: ADMIN_TOKEN } });
    assert.equal(run.code, 0, run.stderr);
    const failures = await larder.sandbox.requests.list({ status: '5xx' });
    assert.deepEqual(
      failures.map((entry) => entry.path),
      ['/v1/failing/1', '/v1/failing/2'],
    );
    const [first, second] = failures.map((entry) => `${entry.time} GET ${entry.path} ${entry.code}\n`);
    assert.equal(run.stdout, `abort after 60000 ms\n${first}wait 200 ms\n${second}wait 200 ms\n`);
  } finally {
    await larder.sandbox.faults.clear();
    await larder.sandbox.requests.clear();
  }
});
