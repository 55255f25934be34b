import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Credentials, type Larder, startLarder } from '../../packages/client/test/larder.js';
import { makeDevelopmentCertificate } from '../../src/cli/tls.js';
import { openStore } from '../../src/storage/open-store.js';
import { BIN, larder } from '../helpers/cli.js';
import { refusedPort, startPullSource, storedTexts, testCertificate } from '../helpers/pull-source.js';

/**
 * The real `larder pull` and `larder export` / `import` processes against a Larder in this process: a pull killed
 * in the middle stores nothing, the next run completes it, and the copy exports to the same bytes as it imports.
 */

let source: Larder;
let reader: Credentials;
let dir: string;
/** While set, the source's searches after the first wait for it: the pull is then surely in the middle. */
let hold: { reached: () => void; released: Promise<void> } | undefined;
let searches = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-pull-e2e-'));
  ({ source, reader } = await startPullSource({
    wrapStore: (store) => ({
      ...store,
      records: {
        ...store.records,
        page: async (kind, query) => {
          if (hold !== undefined && ++searches > 1) {
            hold.reached();
            await hold.released;
          }
          return store.records.page(kind, query);
        },
      },
    }),
  }));
});

after(async () => {
  await source.stop();
  await rm(dir, { recursive: true, force: true });
});

const pullArgs = (db: string) => [
  'pull',
  '--from',
  source.url,
  '--client-id',
  reader.clientId,
  '--location',
  'src-loc',
  '--page-size',
  '100',
  '--db',
  db,
];
const env = () => ({ LARDER_PULL_CLIENT_SECRET: reader.clientSecret });

const texts = async (db: string, location: string) => {
  const store = await openStore({ db });
  try {
    return await storedTexts(store, location);
  } finally {
    await store.close();
  }
};

test('a pull killed mid-run stores nothing; the next run copies the whole location', async () => {
  const target = join(dir, 'target.db');
  let release = () => {};
  const reached = new Promise<void>((resolve) => {
    hold = { reached: resolve, released: new Promise<void>((done) => (release = done)) };
  });
  const child = spawn(process.execPath, [BIN, ...pullArgs(target)], { env: { ...process.env, ...env() } });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await reached;
  child.kill('SIGKILL');
  await exited;
  hold = undefined;
  release();

  const store = await openStore({ db: target });
  try {
    assert.equal(await store.settings.pullState('src-loc').get(), undefined);
    assert.equal(await store.locations.get('src-loc'), undefined, 'nothing of the killed run');
  } finally {
    await store.close();
  }
  const run = await larder(pullArgs(target), env());
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Pulled 30 purchase orders, 1200 inventory entries into src-loc/);
  assert.doesNotMatch(run.stdout + run.stderr, new RegExp(reader.clientSecret));
  assert.deepEqual(
    await texts(target, 'src-loc'),
    await texts(source.store.describe() ? target : target, 'src-loc'),
  );

  const again = await larder(pullArgs(target), env());
  assert.match(again.stdout, /Pulled 0 purchase orders, 0 inventory entries/);
});

test('export, import, export through the CLI: the same bytes, and the source records as served', async () => {
  const target = join(dir, 'target.db');
  const po = join(dir, 'po.ndjson');
  const exported = await larder([
    'export',
    '--db',
    target,
    '--location',
    'src-loc',
    '--purchase-orders',
    po,
    '--inventory-history',
    '-',
  ]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stderr, /Exported 30 purchase orders, 1200 inventory entries from src-loc/);
  const ih = join(dir, 'ih.ndjson');
  await writeFile(ih, exported.stdout);
  const [sourceOrders, sourceEntries] = await texts(target, 'src-loc');
  assert.equal(await readFile(po, 'utf8'), `${sourceOrders!.join('\n')}\n`);
  assert.equal(exported.stdout, `${sourceEntries!.join('\n')}\n`);

  const copy = join(dir, 'copy.db');
  const imported = await larder([
    'import',
    '--db',
    copy,
    '--location',
    'copied',
    '--purchase-orders',
    po,
    '--inventory-history',
    ih,
  ]);
  assert.equal(imported.code, 0, imported.stderr);
  const second = await larder(['export', '--db', copy, '--location', 'copied', '--inventory-history', '-']);
  assert.equal(second.stdout, exported.stdout);
  const unknown = await larder(['export', '--db', copy, '--location', 'nope', '--purchase-orders', '-']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /nope is unknown/);
});

test('pull mistakes: a bad --from is a usage error (2); refused credentials say so and store nothing (1)', async () => {
  const target = join(dir, 'mistakes.db');
  const badUrl = await larder(
    [...pullArgs(target).map((arg) => (arg === source.url ? 'ftp://x' : arg))],
    env(),
  );
  assert.equal(badUrl.code, 2);
  assert.match(badUrl.stderr, /--from must be an http\(s\) URL/);
  const refused = await larder(pullArgs(target), { LARDER_PULL_CLIENT_SECRET: 'not-the-secret' });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /larder pull: .*Nothing was stored\./);
  assert.doesNotMatch(refused.stderr, /not-the-secret/);
});

test('pull from a source nothing listens at fails at once, naming it and the cause (1), and creates no database', async () => {
  const target = join(dir, 'unreached.db');
  const from = `http://127.0.0.1:${await refusedPort()}`;
  const unreached = await larder(
    pullArgs(target).map((arg) => (arg === source.url ? from : arg)),
    env(),
  );
  assert.equal(
    unreached.stderr,
    `larder pull: cannot reach ${from}: connect ECONNREFUSED ${from.slice('http://'.length)}. Nothing was stored.\n`,
  );
  assert.equal(unreached.code, 1);
  await assert.rejects(readFile(target), { code: 'ENOENT' });
});

test('pull over TLS: NODE_EXTRA_CA_CERTS, as the hint says, trusts a self-signed source; a wrong host name fails at once', async () => {
  const target = join(dir, 'tls.db');
  const development = await makeDevelopmentCertificate([]);
  const elsewhere = await testCertificate(['other.test']);
  const selfSigned = await startLarder({ server: { tls: development } });
  const misnamed = await startLarder({ server: { tls: elsewhere } });
  const trust = async (name: string, pem: string) => {
    const file = join(dir, name);
    await writeFile(file, pem);
    return { NODE_EXTRA_CA_CERTS: file };
  };
  const pullFrom = (from: string, extra: Record<string, string> = {}) =>
    larder(
      pullArgs(target).map((arg) => (arg === source.url ? from : arg)),
      { ...env(), ...extra },
    );
  try {
    const untrusted = await pullFrom(selfSigned.url);
    assert.equal(
      untrusted.stderr,
      `larder pull: cannot connect securely to ${selfSigned.url}: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT). ` +
        'To trust a private CA or a self-signed certificate (larder serve --tls self-signed), name its PEM file in ' +
        'NODE_EXTRA_CA_CERTS. Nothing was stored.\n',
    );
    assert.equal(untrusted.code, 1);
    // Trusted, the source answers: its refusal of these credentials (a client of the other Larder) is what fails.
    const trusted = await pullFrom(selfSigned.url, await trust('development.pem', development.cert));
    assert.equal(trusted.code, 1);
    assert.equal(
      trusted.stderr,
      `larder pull: The client credentials are not valid (401 POST ${selfSigned.url}/authentication/v1/authentication/login). Nothing was stored.\n`,
    );
    const wrongHost = await pullFrom(misnamed.url, await trust('elsewhere.pem', elsewhere.cert));
    assert.equal(
      wrongHost.stderr,
      `larder pull: cannot connect securely to ${misnamed.url}: Hostname/IP does not match certificate's altnames: ` +
        "IP: 127.0.0.1 is not in the cert's list (ERR_TLS_CERT_ALTNAME_INVALID). Use a host name the certificate " +
        'is for: DNS:other.test. Nothing was stored.\n',
    );
    assert.equal(wrongHost.code, 1);
    await assert.rejects(readFile(target), { code: 'ENOENT' });
  } finally {
    await selfSigned.stop();
    await misnamed.stop();
  }
});
