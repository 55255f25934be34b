import assert from 'node:assert/strict';
import { rm, stat } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { lowContrast } from '../helpers/contrast.js';
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

test('lowContrast finds each text under 4.5:1 against the backgrounds beneath it, and only those', async () => {
  const page = await browser.context.newPage();
  try {
    // Two texts share their backgrounds and one has its own, so the lists of backgrounds the page sends are shared.
    await page.setContent(`<style>input::placeholder { color: #ccc }</style><body style="background: #fff; color: #000">
      <p>black on white</p>
      <div style="background: #777"><p style="color: #888">grey on grey</p><p style="color: #fff">white on grey</p><p style="color: #000">black on grey</p></div>
      <p style="color: #aaa">light grey on white</p>
      <input placeholder="a placeholder" style="color: #000">
    </body>`);
    const low = await lowContrast(page);
    assert.deepEqual(
      low.map((sample) => `${sample.text} ${sample.ratio.toFixed(2)}`),
      ['grey on grey 1.26', 'white on grey 4.48', 'light grey on white 2.32', 'a placeholder 1.61'],
    );
  } finally {
    await page.close();
  }
});
