import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { larder, startServe, stop } from '../helpers/cli.js';

/** `npx larder serve` with no flags, as a new user runs it: demo data, demo client, a curl that works. */

/** The demo credentials from the banner: one JSON line when stdout is not a terminal (as here). */
const credentials = (output: string) => {
  const line = output.split('\n').find((l) => l.includes('"msg":"Larder is listening on'));
  assert.ok(line, output);
  const demo = (
    JSON.parse(line) as { demo?: { clientId: string; clientSecret: string; locations: { id: string }[] } }
  ).demo;
  const location = demo?.locations[0]?.id;
  assert.ok(demo && location, output);
  return { clientId: demo.clientId, clientSecret: demo.clientSecret, location };
};

describe('first start', () => {
  let cwd: string;
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'larder-demo-'));
  });
  after(() => rm(cwd, { recursive: true, force: true }));

  test('a new default database gets demo data and a demo client whose printed credentials work', async () => {
    const server = await startServe(['--port', '0'], { cwd });
    try {
      const output = server.output();
      assert.match(output, /Demo data ready/);
      const { clientId, clientSecret, location } = credentials(output);
      assert.equal((output.match(/\{"id":"loc-[^"]+","name"/g) ?? []).length, 3);
      const login = await fetch(`${server.url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
      });
      const token = ((await login.json()) as { token: { accessToken: string } }).token.accessToken;
      const response = await fetch(`${server.url}/v1/inventoryHistory/search`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': location,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ adjustmentType: ['RECEIVE'] }),
      });
      assert.equal(response.status, 200);
      const page = (await response.json()) as { data: unknown[]; nextPageToken: string };
      assert.equal(page.data.length, 100);
      assert.notEqual(page.nextPageToken, '');
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  test('a second start reuses the database and prints the same credentials without seeding again', async () => {
    const before = JSON.parse((await larder(['locations', 'list', '--json'], {}, cwd)).stdout) as unknown[];
    const first = await startServe(['--port', '0'], { cwd });
    const output = first.output();
    await stop(first.child);
    assert.doesNotMatch(output, /creating demo data/);
    assert.ok(credentials(output).clientSecret.length >= 43);
    const afterwards = JSON.parse(
      (await larder(['locations', 'list', '--json'], {}, cwd)).stdout,
    ) as unknown[];
    assert.deepEqual(afterwards, before);
  });

  test('--no-demo on a demo database serves no admin API, and its docs page hands out no demo secret', async () => {
    const demo = await startServe(['--port', '0'], { cwd });
    const banner = demo.output();
    const clientSecret = /"clientSecret":"([^"]+)"/.exec(banner)?.[1];
    assert.ok(clientSecret, banner);
    assert.match(await (await fetch(`${demo.url}/docs/init.js`)).text(), new RegExp(clientSecret));
    await stop(demo.child);
    const adminToken = /"adminToken":"([^"]+)"/.exec(banner)?.[1];
    assert.ok(adminToken, banner);
    const server = await startServe(['--port', '0', '--no-demo'], { cwd });
    try {
      for (const [method, path] of [
        ['GET', '/_larder/clock'],
        ['PUT', '/_larder/faults'],
        ['GET', '/console'],
      ] as const) {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          ...(method === 'PUT' ? { body: '{"rules":[]}' } : {}),
        });
        assert.equal(response.status, 404, path);
        assert.equal(((await response.json()) as { code: number }).code, 40402);
      }
      const script = await (await fetch(`${server.url}/docs/init.js`)).text();
      assert.ok(!script.includes(clientSecret), 'the demo secret is in /docs/init.js');
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    assert.doesNotMatch(server.output(), /adminToken|adminOn/);
    assert.ok(!server.output().includes(clientSecret), 'the --no-demo banner names the demo secret');
  });

  test('--no-demo on a new database starts empty and says how to load data', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'larder-nodemo-'));
    try {
      const server = await startServe(['--port', '0', '--no-demo'], { cwd: empty });
      await stop(server.child);
      assert.match(server.output(), /The database is empty/);
      assert.doesNotMatch(server.output(), /clientSecret/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
