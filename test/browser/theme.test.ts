import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { AA, backgroundOf, contrastOf, isDark, lowContrast } from '../helpers/contrast.js';
import { logInOver, searchOrdersOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Dark mode: the console follows the system's colour scheme until its "Colour theme" picker says otherwise; the
 * choice outlives a reload, reaches the other open tabs, and /docs follows it too (same origin, same storage). In
 * both themes every piece of text on every view meets WCAG AA (4.5:1), placeholders included; main text, muted
 * text, links, buttons and error text are also checked by name, so none passes by being absent. /docs's text is
 * checked with everything open in docs-light.test.ts and docs-dark.test.ts.
 */

let running: TestServer;
let browser: BrowserSession;
let page: Page;
let url: string;
let consoleLink: string;

const THEME_KEY = 'larder-theme';

const picker = (on: Page) => on.getByLabel('Colour theme');

/** Whether the page shows dark: what lies beneath its main content. */
const shownDark = async (on: Page, under = 'main') => isDark(await backgroundOf(on.locator(under).first()));

const openConsole = async (on: Page) => {
  await on.goto(consoleLink);
  await on.waitForSelector('table.locations tbody tr');
};

/**
 * Whether what lies beneath the element matching `under` is as `dark` says: the nearest background that is not
 * transparent, else the canvas (dark only under `color-scheme: dark`). A function made from a string, so the test's
 * transpiler adds nothing to it; not a string expression, which Playwright evaluates at every poll, and which the
 * pages' Content-Security-Policy (no 'unsafe-eval') refuses once the first poll has not already answered true.
 */
const SCHEME_IS = new Function(`return ([under, dark]) => {
  let shade;
  for (let node = document.querySelector(under); node !== null && shade === undefined; node = node.parentElement) {
    const [r, g, b, a = 1] = (getComputedStyle(node).backgroundColor.match(/[\\d.]+/g) ?? []).map(Number);
    if (a > 0) shade = (r + g + b) / 3;
  }
  const isDark = shade === undefined ? getComputedStyle(document.documentElement).colorScheme === 'dark' : shade < 128;
  return isDark === dark;
}`)() as (args: [string, boolean]) => boolean;

/** Waits (polling on the page's animation frames, no timer) until the page under `under` shows dark or light. */
const waitForScheme = async (on: Page, dark: boolean, under = 'main') => {
  await on.waitForFunction(SCHEME_IS, [under, dark] as [string, boolean]);
};

const view = async (name: string) => {
  await page.click(`header nav a:has-text("${name}")`);
  await page.waitForSelector(`header nav a[aria-current="page"]:has-text("${name}")`);
};

before(async () => {
  running = await startTestServer({ demo: true });
  url = running.server.url;
  consoleLink = `${url}/console#token=${encodeURIComponent(running.demo!.adminToken)}`;
  // Traffic with each status class for the journal's view: a search answered, a bad one, a faulted one.
  const location = (await running.store.locations.list())[0]!.id;
  const accessToken = await logInOver(url, running.demo!.clientId, running.demo!.clientSecret);
  const search = (query: string) => searchOrdersOver(url, accessToken, location, query);
  const admin = { authorization: `Bearer ${running.demo!.adminToken}`, 'content-type': 'application/json' };
  assert.equal((await search('?pageSize=5')).status, 200);
  assert.equal((await search('?pageSize=0')).status, 400);
  const fault = { effect: { type: 'status', status: 503 }, when: { next: 1 } };
  const added = await fetch(`${url}/_larder/faults`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify(fault),
  });
  assert.equal(added.status, 201);
  assert.equal((await search('?pageSize=5')).status, 503);
  browser = await openBrowser(url);
  page = browser.page;
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

test('with no choice made, the console follows the system: dark when it prefers dark, light again when it changes', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openConsole(page);
  assert.equal(await picker(page).inputValue(), 'system');
  assert.deepEqual(await picker(page).locator('option').allTextContents(), ['System', 'Light', 'Dark']);
  assert.equal(await shownDark(page), true);
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await shownDark(page), false);
});

test('the picker overrides the system, is kept in localStorage and outlives a reload', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await picker(page).selectOption('light');
  assert.equal(await shownDark(page), false);
  assert.equal(await page.evaluate(`localStorage.getItem('${THEME_KEY}')`), 'light');
  await page.reload();
  await page.waitForSelector('table.locations tbody tr');
  assert.equal(await picker(page).inputValue(), 'light');
  assert.equal(await shownDark(page), false);

  await page.emulateMedia({ colorScheme: 'light' });
  await picker(page).selectOption('dark');
  assert.equal(await shownDark(page), true);
  await page.reload();
  await page.waitForSelector('table.locations tbody tr');
  assert.equal(await shownDark(page), true);
});

test('another open tab follows a choice made in one, without a reload', async () => {
  const second = await browser.context.newPage();
  try {
    await second.emulateMedia({ colorScheme: 'light' });
    await openConsole(second);
    assert.equal(await picker(second).inputValue(), 'dark');
    await picker(page).selectOption('light');
    await waitForScheme(second, false);
    assert.equal(await picker(second).inputValue(), 'light');
    assert.equal(await shownDark(second), false);
    await picker(page).selectOption('dark');
    await waitForScheme(second, true);
    assert.equal(await shownDark(second), true);
    // Back to the system: the other tab follows its own system preference (light) again.
    await picker(page).selectOption('system');
    await waitForScheme(second, false);
    assert.equal(await picker(second).inputValue(), 'system');
  } finally {
    await second.close();
  }
});

/** A sample of each kind of text, by name, that must meet AA. */
const checkNamed = async (samples: Record<string, Locator>, theme: string) => {
  for (const [name, locator] of Object.entries(samples)) {
    const sample = await contrastOf(locator.first());
    assert.ok(
      sample.ratio >= AA,
      `${theme}: ${name} (${sample.what} "${sample.text}") is ${sample.ratio.toFixed(2)}:1, under ${AA}:1`,
    );
  }
};

const checkAll = async (where: string, theme: string) => {
  const low = await lowContrast(page);
  assert.deepEqual(
    low.map((sample) => `${sample.what} "${sample.text}" ${sample.ratio.toFixed(2)}:1`),
    [],
    `${theme}, ${where}: text under ${AA}:1`,
  );
};

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} theme: main text, muted text, links, buttons and error text meet AA on every view`, async () => {
    await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
    await openConsole(page);
    await picker(page).selectOption(theme);
    assert.equal(await shownDark(page), theme === 'dark');

    await checkNamed(
      {
        'main text': page.locator('table.locations td'),
        'muted text (a table heading)': page.locator('table.locations th'),
        link: page.locator('table.locations td a'),
        'header link': page.locator('header nav a:not([aria-current])'),
        'the theme picker': picker(page),
      },
      theme,
    );
    await checkAll('Locations', theme);

    await view('Purchase orders');
    await page.waitForSelector('table.orders tbody tr');
    await checkNamed(
      {
        'muted text (a filter label)': page.locator('form.filters label'),
        'primary button': page.locator('form.filters button[type="submit"]'),
        'secondary button': page.locator('.pager button:not(:disabled)'),
      },
      theme,
    );
    await checkAll('Purchase orders', theme);
    if (theme === 'dark') await browser.screenshot('console-dark-orders');

    await view('Inventory');
    await page.waitForSelector('.chart svg .point');
    await checkAll('Inventory', theme);
    if (theme === 'dark') await browser.screenshot('console-dark-inventory');

    await view('Traffic');
    await page.waitForSelector('table.journal .fault');
    await page.locator('table.journal button.toggle').first().click();
    await page.waitForSelector('table.journal pre.json');
    await checkNamed(
      {
        'a 2xx status': page.locator('table.journal .code.s2'),
        'a 4xx status (warning)': page.locator('table.journal .code.s4'),
        'a 5xx status (error)': page.locator('table.journal .code.s5'),
        'an injected fault (error)': page.locator('table.journal .fault'),
      },
      theme,
    );
    await checkAll('Traffic', theme);

    await view('Controls');
    await page.waitForSelector('.clock-now .now');
    await checkNamed(
      {
        'primary button': page.locator('button[name="advance"]'),
        'secondary button': page.locator('button[name="reset-clock"]'),
      },
      theme,
    );
    await checkAll('Controls', theme);
    await page.click('button[name="reset-sandbox"]');
    await checkNamed({ 'the reset button (danger)': page.locator('button[name="confirm-reset"]') }, theme);
    await checkAll('the reset confirmation', theme);
    await page.click('button[name="cancel-reset"]');

    await page.goto(`${url}/console#/nowhere`);
    await page.waitForSelector('.problem:has-text("no page")');
    await checkNamed(
      { 'error text': page.locator('p.problem'), 'a link in an error': page.locator('p.problem a') },
      theme,
    );
    await checkAll('an unknown page', theme);

    // The token form, with a refused token: its error, its field and its button.
    const gate = await browser.context.newPage();
    try {
      await gate.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
      await gate.goto(`${url}/console#token=not-the-admin-token`);
      await gate.waitForSelector('.problem:has-text("refused")');
      assert.equal(await shownDark(gate), theme === 'dark');
      await checkNamed(
        { 'error text': gate.locator('p.problem'), button: gate.locator('button[type="submit"]') },
        theme,
      );
      assert.deepEqual(await lowContrast(gate), [], `${theme}, the token form: text under ${AA}:1`);
    } finally {
      await gate.close();
    }
  });
}

test('/docs follows the system, then the console’s choice (in this tab at once, and at its next load)', async () => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openConsole(page);
  await picker(page).selectOption('system');
  const docs = await browser.context.newPage();
  try {
    await docs.emulateMedia({ colorScheme: 'light' });
    await docs.goto(`${url}/docs`);
    await docs.locator('.opblock').first().waitFor();
    assert.equal(await shownDark(docs, '.swagger-ui .info'), false);
    // The page's script follows a change of the system's scheme when the browser reports it (a frame later).
    await docs.emulateMedia({ colorScheme: 'dark' });
    await waitForScheme(docs, true, '.swagger-ui .info');
    assert.equal(await shownDark(docs, '.swagger-ui .info'), true);

    await docs.emulateMedia({ colorScheme: 'light' });
    await waitForScheme(docs, false, '.swagger-ui .info');
    await picker(page).selectOption('dark');
    await waitForScheme(docs, true, '.swagger-ui .info');
    assert.equal(await shownDark(docs, '.swagger-ui .info'), true);
    await docs.reload();
    await docs.locator('.opblock').first().waitFor();
    assert.equal(await shownDark(docs, '.swagger-ui .info'), true);
    await docs
      .locator('#operations-tag-authentication')
      .evaluate((tag) => tag.scrollIntoView({ block: 'start' }));
    await browser.screenshot('docs-dark', docs);

    await picker(page).selectOption('light');
    await waitForScheme(docs, false, '.swagger-ui .info');
    await docs.emulateMedia({ colorScheme: 'dark' });
    // Two frames on: the browser has reported the change to the page's script by then.
    await docs.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    assert.equal(
      await shownDark(docs, '.swagger-ui .info'),
      false,
      'light, as chosen, over the system’s dark',
    );
  } finally {
    await docs.close();
  }
});

test('no request left the server’s origin', () => {
  assert.deepEqual(browser.offOrigin(), []);
});
