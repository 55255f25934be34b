import assert from 'node:assert/strict';
import { rm, stat } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The browser harness itself: it drives Debian's Chromium and catches a request that leaves the origin. */

let running: TestServer;
let browser: BrowserSession;

before(async () => {
  running = await startTestServer();
  browser = await openBrowser(running.server.url, { path: '/healthz' });
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

test('a page is loaded from the in-process server and its requests are recorded', async () => {
  assert.match(await browser.page.content(), /"status":"ok"/);
  assert.ok(browser.requests.includes(`${running.server.url}/healthz`));
  assert.deepEqual(browser.offOrigin(), []);
});

test('a request to another origin is recorded as off-origin and never answered', async () => {
  const outcome = await browser.page.evaluate(() =>
    fetch('https://cdn.example.invalid/lib.js').then(
      () => 'answered',
      () => 'blocked',
    ),
  );
  assert.equal(outcome, 'blocked');
  assert.deepEqual(browser.offOrigin(), ['https://cdn.example.invalid/lib.js']);
});

test('a screenshot is written', async () => {
  const file = await browser.screenshot('harness', browser.page);
  assert.ok((await stat(file)).size > 0);
  await rm(file);
});
