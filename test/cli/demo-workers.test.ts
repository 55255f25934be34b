import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServe, stop } from '../helpers/cli.js';

/**
 * A demo start under `--workers 2` is a demo on every worker: the admin API and console the banner offers open with
 * the demo's admin token, and /docs prefills the demo client, whichever worker answers.
 */

let dir: string;
let server: Awaited<ReturnType<typeof startServe>>;
let demo: { clientSecret: string; adminOn: boolean; adminToken: string };

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-demo-workers-'));
  server = await startServe(['--db', join(dir, 'larder.db'), '--port', '0', '--workers', '2']);
  const banner = server
    .output()
    .split('\n')
    .find((line) => line.includes('"msg":"Larder is listening'));
  demo = (JSON.parse(banner ?? '{}') as { demo: typeof demo }).demo;
});
after(async () => {
  if (server !== undefined) await stop(server.child);
  await rm(dir, { recursive: true, force: true });
});

test('every worker serves the admin API, the console and the /docs prefill the demo banner offers', async () => {
  assert.equal(demo.adminOn, true);
  // A fresh connection each: the primary hands them to the workers in turn, so both answer.
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { ...headers, connection: 'close' } });
  for (let n = 0; n < 4; n++) {
    const clock = await get('/_larder/clock', { authorization: `Bearer ${demo.adminToken}` });
    assert.equal(clock.status, 200, `request ${n}: ${await clock.text()}`);
    assert.equal((await get('/console')).status, 200, `request ${n}`);
    assert.ok((await (await get('/docs/init.js')).text()).includes(demo.clientSecret), `request ${n}`);
  }
});
