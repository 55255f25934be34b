import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createConsoleRoutes, loadConsoleAssets } from '../../src/sandbox/console-assets.js';
import { createApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { adminConfig } from '../helpers/admin-requests.js';

/** The built console served at /console: only with the admin API, this origin only, never journaled. */

let dir: string;
let store: Store;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-console-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const app = async (adminToken?: string) =>
  (
    await createApp({
      store,
      clock: createTestClock(Date.UTC(2025, 4, 1)),
      logger: silentLogger,
      config:
        adminToken === undefined
          ? { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false }
          : adminConfig(adminToken),
    })
  ).app;

test('with the admin API on, /console and /console/ serve the page with headers that keep it on this origin', async () => {
  const larder = await app('console-admin-token-0123');
  for (const path of ['/console', '/console/']) {
    const response = await larder.request(path);
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(
      response.headers.get('content-security-policy') ?? '',
      /default-src 'self'.*connect-src 'self'/,
    );
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const html = await response.text();
    // The theme's script, inline at the top of the page, runs by its hash; no other inline script would.
    const csp = response.headers.get('content-security-policy') ?? '';
    const inline = [...html.matchAll(/<script>([^<]*)<\/script>/g)].map((match) => match[1]!);
    assert.equal(inline.length, 1, html);
    assert.match(html, /^<!doctype html>\s*<html[^>]*>\s*<head><script>/i);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    assert.match(csp, new RegExp(`script-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}';`));
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.doesNotMatch(html, /https?:\/\//, 'the page names no other origin');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await larder.request(script);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
  }
  // Only the page and its assets: the page's file name is not a second address for it.
  assert.equal((await larder.request('/console/index.html')).status, 404);
  const missing = await larder.request('/console/assets/nothing.js');
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { code: number }).code, 40402);
});

test('without the admin API there is no console, and its 404 says why; the admin API stays a plain 404', async () => {
  const larder = await app();
  for (const path of ['/console', '/console/', '/console/assets/app.js']) {
    const response = await larder.request(path);
    assert.equal(response.status, 404);
    const body = (await response.json()) as { code: number; message: string };
    assert.equal(body.code, 40402);
    assert.match(
      body.message,
      /the admin API, which this server runs without\. Start larder serve with --admin-token/,
    );
  }
  const admin = await larder.request('/_larder/clock');
  assert.equal(((await admin.json()) as { message: string }).message, 'No such endpoint.');
});

test('the console’s own page loads are not the integration’s traffic: the journal leaves them out', async () => {
  const larder = await createApp({
    store,
    clock: createTestClock(Date.UTC(2025, 4, 1)),
    logger: silentLogger,
    config: adminConfig('console-admin-token-0123'),
  });
  await larder.app.request('/console');
  await larder.app.request('/.well-known/jwks.json');
  assert.deepEqual(
    larder.journal?.list().map((entry) => entry.path),
    ['/.well-known/jwks.json'],
  );
});

test('an unbuilt console answers 404 saying how to build it; a built folder is read whole, by URL path', async () => {
  assert.equal(await loadConsoleAssets(join(dir, 'nowhere')), undefined);
  const unbuilt = createConsoleRoutes(undefined);
  unbuilt.onError((error) => new Response(error.message, { status: 404 }));
  assert.match(await (await unbuilt.request('/console')).text(), /npm run build:console/);

  const built = join(dir, 'dist');
  await mkdir(join(built, 'assets'), { recursive: true });
  await writeFile(join(built, 'index.html'), '<!doctype html>');
  await writeFile(join(built, 'assets', 'app-1.css'), 'body{}');
  // The theme's script goes first in the page's head: a page without one is not the console's build.
  await assert.rejects(loadConsoleAssets(built), /The console page .*index\.html has no <head>\./);
  await writeFile(join(built, 'index.html'), '<!doctype html><html><head><title>t</title></head></html>');
  const assets = await loadConsoleAssets(built);
  assert.deepEqual([...(assets?.keys() ?? [])].sort(), ['assets/app-1.css', 'index.html']);
  assert.equal(assets?.get('assets/app-1.css')?.type, 'text/css; charset=utf-8');
  assert.match(
    new TextDecoder().decode(assets?.get('index.html')?.body),
    /^<!doctype html><html><head><script>\(\(\) => \{[^<]*\}\)\(\);<\/script><title>t<\/title>/,
  );
});
