import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { larder, startServe, stop } from '../helpers/cli.js';

const LOGIN = '/authentication/v1/authentication/login';
const ADMIN = 'faults-admin-token-0123456789';

/** `larder serve --rate-limit`, `--faults FILE` and `--allow-fault-header` as an operator starts them. */
describe('serve with rate limits and faults', () => {
  let dir: string;
  let db: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-faults-cli-'));
    db = join(dir, 'larder.db');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  // Fresh connections each, so both workers answer some (the primary hands connections round-robin).
  const post = async (url: string, path: string, headers: Record<string, string> = {}, body = '{}') =>
    (
      await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { connection: 'close', 'content-type': 'application/json', ...headers },
        body,
      })
    ).status;

  test('a bad faults file stops the start, naming the file and the field', async () => {
    const file = join(dir, 'faults.json');
    await writeFile(file, JSON.stringify({ rules: [{ effect: { type: 'status', status: 404 } }] }));
    const run = await larder(['serve', '--db', db, '--no-demo', '--port', '0', '--faults', file]);
    assert.notEqual(run.code, 0);
    assert.match(
      run.stderr,
      new RegExp(`--faults ${file.replaceAll('\\', '\\\\')}: rules\\[0\\]\\.effect\\.status`),
    );
    const missing = await larder([
      'serve',
      '--db',
      db,
      '--no-demo',
      '--port',
      '0',
      '--faults',
      join(dir, 'nope'),
    ]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /--faults .*nope: cannot read it \(ENOENT\)/);
    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '{rules');
    const bad = await larder(['serve', '--db', db, '--no-demo', '--port', '0', '--faults', notJson]);
    assert.match(bad.stderr, /--faults .*not\.json: not JSON/);
  });

  test('a bad --rate-limit stops the start and says what is accepted', async () => {
    const run = await larder(['serve', '--db', db, '--no-demo', '--port', '0', '--rate-limit', 'fast']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /--rate-limit must be platform, off, or limits such as 5\/s,100\/15m/);
  });

  test('--help lists the new flags', async () => {
    const run = await larder(['serve', '--help']);
    for (const flag of ['--rate-limit', '--faults', '--allow-fault-header'])
      assert.match(run.stdout, new RegExp(flag));
  });

  test('a faults file applies without an admin token; the admin API and the header stay off', async () => {
    const file = join(dir, 'every-other.json');
    await writeFile(
      file,
      JSON.stringify({
        rules: [
          { match: { pathPrefix: LOGIN }, when: { every: 2 }, effect: { type: 'status', status: 503 } },
        ],
      }),
    );
    const server = await startServe(['--db', db, '--no-demo', '--port', '0', '--faults', file]);
    try {
      assert.match(server.output(), /Fault injection: 1 rule\(s\) from --faults\./);
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) seen.push(await post(server.url, LOGIN, { 'larder-fault': 'status=500' }));
      assert.deepEqual(seen, [400, 503, 400, 503]);
      assert.equal((await fetch(`${server.url}/_larder/faults`)).status, 404);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  test('--workers 2: one rate-limit count and one set of fault rules for every worker', async () => {
    const server = await startServe([
      '--db',
      db,
      '--no-demo',
      '--port',
      '0',
      '--workers',
      '2',
      '--admin-token',
      ADMIN,
      '--rate-limit',
      '6/24h',
      '--login-throttle',
      'off',
    ]);
    try {
      assert.match(server.output(), /Rate limits: 6 per 86400 s \(429 past them\)\./);
      const put = await fetch(`${server.url}/_larder/faults`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'application/json',
          connection: 'close',
        },
        body: JSON.stringify({
          rules: [
            {
              match: { pathPrefix: '/nothing' },
              when: { every: 3 },
              effect: { type: 'status', status: 502 },
            },
          ],
        }),
      });
      assert.equal(put.status, 200);
      const faulted: number[] = [];
      for (let i = 0; i < 9; i++) faulted.push(await post(server.url, '/nothing'));
      // Per worker, counts would drift from every third request.
      assert.deepEqual(faulted, [404, 404, 502, 404, 404, 502, 404, 404, 502]);

      const limited: number[] = [];
      for (let i = 0; i < 10; i++) limited.push(await post(server.url, LOGIN));
      // Per worker, 12 would pass: each worker would allow 6.
      assert.deepEqual(limited, [...Array(6).fill(400), ...Array(4).fill(429)]);
      // Every worker shows the primary's one count (the refused were not counted), and clears it for all.
      const admin = (method: string, path: string) =>
        fetch(`${server.url}/_larder${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN}`, connection: 'close' },
        });
      for (let i = 0; i < 2; i++) {
        const counts = (await (await admin('GET', '/rate-limits')).json()) as {
          counted: { sourceAddress?: string; windows: { used: number }[] }[];
        };
        assert.deepEqual(
          counts.counted.map(({ sourceAddress, windows }) => [sourceAddress, windows[0]?.used]),
          [['127.0.0.1', 6]],
        );
      }
      assert.deepEqual(
        ((await (await admin('DELETE', '/rate-limits')).json()) as { counted: [] }).counted,
        [],
      );
      const served: number[] = [];
      for (let i = 0; i < 4; i++) served.push(await post(server.url, LOGIN));
      assert.deepEqual(served, Array(4).fill(400));
      const state = (await (
        await fetch(`${server.url}/_larder/faults`, {
          headers: { authorization: `Bearer ${ADMIN}`, connection: 'close' },
        })
      ).json()) as { rules: { matched: number; applied: number }[] };
      assert.deepEqual(
        state.rules.map(({ matched, applied }) => [matched, applied]),
        [[9, 3]],
      );
      // After a DELETE on one worker, none faults.
      const cleared = await fetch(`${server.url}/_larder/faults`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN}`, connection: 'close' },
      });
      assert.deepEqual(await cleared.json(), { rules: [] });
      const after: number[] = [];
      for (let i = 0; i < 6; i++) after.push(await post(server.url, '/nothing'));
      assert.deepEqual(after, Array(6).fill(404));
      // One rule at a time through any worker: the primary's 409 and 404 reach the client as such.
      const rule = JSON.stringify({
        id: 'one',
        match: { pathPrefix: '/nothing' },
        effect: { type: 'status', status: 502 },
      });
      const added: number[] = [];
      for (let i = 0; i < 2; i++)
        added.push(await post(server.url, '/_larder/faults', { authorization: `Bearer ${ADMIN}` }, rule));
      assert.deepEqual(added, [201, 409]);
      assert.equal(await post(server.url, '/nothing'), 502);
      const removed: number[] = [];
      for (let i = 0; i < 2; i++)
        removed.push(
          (
            await fetch(`${server.url}/_larder/faults/one`, {
              method: 'DELETE',
              headers: { authorization: `Bearer ${ADMIN}`, connection: 'close' },
            })
          ).status,
        );
      assert.deepEqual(removed, [200, 404]);
      assert.equal(await post(server.url, '/nothing'), 404);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });
});
