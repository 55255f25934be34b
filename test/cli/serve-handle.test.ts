import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { badPortWarnings, serve } from '../../src/cli/serve.js';
import { isSealed } from '../../src/shared/key-encryption.js';
import { silentLogger } from '../../src/shared/logger.js';
import { captureIo, serveConfigIn } from '../helpers/serve-config.js';

/** `larder serve` started in process through its handle, as most server tests can run it. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-handle-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const io = captureIo;
const config = serveConfigIn(() => dir);

test('serve answers on the URL its handle names, and stop() frees the port and closes the store', async () => {
  const output = io();
  const handle = await serve(config(), output, { logger: silentLogger });
  assert.match(handle.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(handle.publicUrl, handle.url);
  assert.match(output.out.join(''), /Larder is listening on http:\/\/127\.0\.0\.1:\d+ /);
  assert.equal((await fetch(`${handle.url}/readyz`)).status, 200);
  await handle.stop();
  await assert.rejects(fetch(`${handle.url}/healthz`));
});

test('the parsed config carries --public-url as the issuer', async () => {
  const handle = await serve(config('--public-url', 'https://api.example.test/larder/'), io(), {
    logger: silentLogger,
  });
  try {
    const metadata = (await (await fetch(`${handle.url}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    assert.equal(metadata.issuer, 'https://api.example.test/larder');
  } finally {
    await handle.stop();
  }
});

test('the startup log says plainly whether signing keys and secrets are encrypted at rest', async () => {
  for (const [argv, level, pattern] of [
    [[], 'warn', /NOT encrypted at rest: they are protected only by file permissions/],
    [['--key-file', join(dir, 'kek')], 'info', /encrypted at rest under the key-encryption key/],
  ] as const) {
    await writeFile(join(dir, 'kek'), 'a-key-encryption-key-for-the-log-test-0000', { mode: 0o600 });
    const lines: string[] = [];
    const logger = {
      ...silentLogger,
      info: (msg: string) => lines.push(`info ${msg}`),
      warn: (msg: string) => lines.push(`warn ${msg}`),
    };
    const handle = await serve(config('--db', join(dir, `log-${level}.db`), ...argv), io(), { logger });
    await handle.stop();
    assert.ok(
      lines.some((line) => line.startsWith(level) && pattern.test(line)),
      lines.join('\n'),
    );
    assert.ok(!lines.some((line) => /can be read by other users/.test(line)), 'a 0600 key file is fine');
  }
});

test('a key file other users can read is named in a warning at start, with its mode', async () => {
  const path = join(dir, 'open-kek');
  await writeFile(path, 'a-key-encryption-key-for-the-mode-test-000');
  await chmod(path, 0o644);
  const lines: string[] = [];
  const logger = { ...silentLogger, warn: (msg: string) => lines.push(msg) };
  const handle = await serve(config('--db', join(dir, 'mode.db'), '--key-file', path), io(), { logger });
  await handle.stop();
  assert.ok(
    lines.includes(`${path} can be read by other users (mode 0644): chmod 600 it, as for any key`),
    lines.join('\n'),
  );
});

test("a port browsers and fetch refuse (the Fetch standard's bad ports) is named in a warning at start", async () => {
  const consequence =
    'browsers will not open /docs or /console there, and fetch clients (@larder/client; larder clock, requests, ' +
    'report, faults and pull) refuse to connect to it, though curl and most other HTTP clients work. Pick another ' +
    'port, such as 8080';
  assert.deepEqual(badPortWarnings({ port: 6000 }), [
    `--port 6000 is a "bad port" of the Fetch standard: ${consequence}.`,
  ]);
  assert.deepEqual(badPortWarnings({ port: 6697, publicUrl: 'https://larder.example.test:10080' }), [
    `--port 6697 is a "bad port" of the Fetch standard: ${consequence}.`,
    `--public-url https://larder.example.test:10080 names a "bad port" of the Fetch standard (10080): ${consequence}.`,
  ]);
  // Port 0 asks for any free port, which is never one of them; a URL without a port uses 80 or 443.
  for (const config of [
    { port: 8080 },
    { port: 0 },
    { port: 8080, publicUrl: 'https://larder.example.test' },
  ])
    assert.deepEqual(badPortWarnings(config), [], JSON.stringify(config));
  // Said at start, with the other warnings: the public URL stands in for a bound port (binding 6000 could race).
  const lines: string[] = [];
  const logger = { ...silentLogger, warn: (msg: string) => lines.push(msg) };
  const handle = await serve(
    config('--db', join(dir, 'bad-port.db'), '--public-url', 'http://127.0.0.1:6000'),
    io(),
    { logger },
  );
  await handle.stop();
  assert.ok(
    lines.includes(badPortWarnings({ port: 0, publicUrl: 'http://127.0.0.1:6000' })[0]!),
    lines.join('\n'),
  );
});

test('a demo start with a key-encryption key prints the demo secret and admin token, which work, and stores them sealed', async () => {
  const db = join(dir, 'sealed-demo.db');
  const kek = join(dir, 'demo-kek');
  await writeFile(kek, 'a-key-encryption-key-for-the-demo-test-00', { mode: 0o600 });
  const demoStart = (...argv: string[]) => ({ ...config('--db', db, ...argv), demo: true });
  /** The demo part of the banner (one JSON line: stdout is not a terminal here). */
  const bannerDemo = (output: { out: string[] }) => {
    const line = output.out.find((text) => text.includes('"msg":"Larder is listening on'));
    assert.ok(line, output.out.join(''));
    const { demo } = JSON.parse(line) as {
      demo?: { clientId: string; clientSecret: string; adminToken?: string };
    };
    assert.ok(demo?.adminToken !== undefined, line);
    return demo;
  };
  let printed: ReturnType<typeof bannerDemo> | undefined;
  // The first start makes the demo; the second reads what it stored.
  for (const start of ['first', 'again']) {
    const output = io();
    const handle = await serve(demoStart('--key-file', kek), output, { logger: silentLogger });
    try {
      const demo = bannerDemo(output);
      if (printed !== undefined) assert.deepEqual(demo, printed, start);
      printed = demo;
      const login = await fetch(`${handle.url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          clientId: demo.clientId,
          clientSecret: demo.clientSecret,
          userAccessType: 'PLATFORM_MACHINE_CLIENT',
        }),
      });
      assert.equal(login.status, 200, start);
      const clock = await fetch(`${handle.url}/_larder/clock`, {
        headers: { authorization: `Bearer ${demo.adminToken}` },
      });
      assert.equal(clock.status, 200, start);
    } finally {
      await handle.stop();
    }
  }
  const file = new Database(db, { readonly: true });
  const stored = Object.fromEntries(
    file
      .prepare<[], { name: string; value: string }>('SELECT name, value FROM settings')
      .all()
      .map((row) => [row.name, row.value]),
  );
  file.close();
  for (const name of ['demo.clientSecret', 'demo.adminToken']) assert.ok(isSealed(stored[name] ?? ''), name);
  const { clientSecret, adminToken } = printed!;
  assert.ok(
    !Object.values(stored).some((value) => value.includes(clientSecret) || value.includes(adminToken!)),
  );
  // Without the key, the start fails saying what is missing.
  await assert.rejects(
    serve(demoStart(), io(), { logger: silentLogger }),
    /encrypted: give its key-encryption key \(LARDER_KEY_ENCRYPTION_KEY or --key-file\)/,
  );
});

test('--journal-size 0 serves the admin API with the journal off; below 0 is a usage error', async () => {
  const adminToken = 'journal-off-admin-token-0123';
  const handle = await serve(config('--admin-token', adminToken, '--journal-size', '0'), io(), {
    logger: silentLogger,
  });
  try {
    const headers = { authorization: `Bearer ${adminToken}` };
    const listed = await fetch(`${handle.url}/_larder/requests`, { headers });
    assert.equal(listed.status, 409);
    assert.equal(((await listed.json()) as { code: number }).code, 40902);
    assert.equal((await fetch(`${handle.url}/_larder/clock`, { headers })).status, 200);
  } finally {
    await handle.stop();
  }
  assert.throws(() => config('--journal-size', '-1'), /--journal-size/);
});
