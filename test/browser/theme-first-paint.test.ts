import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { isDark, parseColour } from '../helpers/contrast.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The console shows a chosen colour theme from its first paint, not the system's for as long as its script takes
 * to arrive: the page's inline script sets it, so it shows while the console's script is held back. That script is
 * allowed by its hash in the page's Content-Security-Policy (a refused one is reported as a console error). /docs
 * reads the choice with the same code.
 */

const ADMIN_TOKEN = 'first-paint-admin-token-0123';
const THEME_KEY = 'larder-theme';

let running: TestServer;
let browser: BrowserSession;
let page: Page;
let url: string;
const errors: string[] = [];

/**
 * Whether the page's style sheet has loaded, so its rules apply; its link follows the inline script, so that has
 * run too. A function made from a string, as in theme.test.ts: the page's CSP refuses a polled string expression.
 */
const STYLED = new Function(
  `return () => document.querySelector('link[rel="stylesheet"]')?.sheet != null`,
)() as () => boolean;

/** Stores the choice (none: the system's), over a system that prefers `system`. */
const choose = async (system: 'light' | 'dark', chosen: 'light' | 'dark' | undefined) => {
  await page.emulateMedia({ colorScheme: system });
  // The same origin, so the same storage; a page without a Content-Security-Policy of its own.
  await page.goto(`${url}/healthz`);
  await page.evaluate(
    chosen === undefined
      ? `localStorage.removeItem('${THEME_KEY}')`
      : `localStorage.setItem('${THEME_KEY}', '${chosen}')`,
  );
};

before(async () => {
  running = await startTestServer({ config: { adminToken: ADMIN_TOKEN } });
  url = running.server.url;
  browser = await openBrowser(url);
  page = browser.page;
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

const cases = [
  { system: 'light', chosen: 'dark' },
  { system: 'dark', chosen: 'light' },
  { system: 'dark', chosen: undefined },
] as const;

for (const { system, chosen } of cases) {
  test(`with the system ${system} and ${chosen ?? 'no theme'} chosen, the console shows ${chosen ?? system} before its script runs`, async () => {
    await choose(system, chosen);
    const bundle = '**/console/assets/*.js';
    let hold!: (route: Route) => void;
    const held = new Promise<Route>((resolve) => {
      hold = resolve;
    });
    await page.route(bundle, (route) => hold(route));
    try {
      await page.goto(`${url}/console#token=${ADMIN_TOKEN}`, { waitUntil: 'commit' });
      const script = await held;
      await page.waitForFunction(STYLED);
      assert.equal(
        await page.evaluate(`document.getElementById('app').childElementCount`),
        0,
        'not rendered',
      );
      assert.equal(await page.evaluate('document.documentElement.dataset.theme'), chosen);
      const background = (await page.evaluate(
        'getComputedStyle(document.documentElement).backgroundColor',
      )) as string;
      assert.equal(isDark(parseColour(background)), (chosen ?? system) === 'dark', background);

      // Once the script runs, the console keeps that theme, and its picker shows the choice.
      await script.continue();
      await page.getByLabel('Colour theme').first().waitFor();
      assert.equal(await page.getByLabel('Colour theme').first().inputValue(), chosen ?? 'system');
      assert.equal(await page.evaluate('document.documentElement.dataset.theme'), chosen);
    } finally {
      await page.unroute(bundle);
    }
  });
}

test('/docs reads the choice with the same code: dark or light as chosen, else as the system', async () => {
  for (const { system, chosen } of cases) {
    await choose(system, chosen);
    await page.goto(`${url}/docs`, { waitUntil: 'domcontentloaded' });
    assert.equal(
      await page.evaluate(`document.documentElement.classList.contains('dark-mode')`),
      (chosen ?? system) === 'dark',
      `${chosen ?? 'no theme'} chosen, the system ${system}`,
    );
  }
});

test('no page reported an error: no inline script was refused by its Content-Security-Policy', () => {
  assert.deepEqual(errors, []);
});

test('no request left the server’s origin', () => {
  assert.deepEqual(browser.offOrigin(), []);
});
