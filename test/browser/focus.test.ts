import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, LAPTOP, openBrowser, type Viewport } from '../helpers/browser.js';
import { AA, hex, NON_TEXT, weakDrawnEdges } from '../helpers/contrast.js';
import { focusProblems, tabThrough } from '../helpers/focus.js';
import { hoverProblems } from '../helpers/hover.js';
import { logInOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Keyboard focus in both themes (WCAG 2.4.7 and 1.4.11): Tab reaches every control of each console view and the
 * token form, and each shows an outline, box-shadow or border when focused whose colour reaches 3:1 against what
 * lies next to it. And every text field, select and button that draws a border shows its edge at 3:1 (by that
 * border or by its fill) against what lies around it. /docs is checked with everything open in docs-light.test.ts
 * and docs-dark.test.ts.
 */

let running: TestServer;
let browser: BrowserSession;
let page: Page;
let url: string;
let consoleLink: string;

before(async () => {
  running = await startTestServer({ demo: true });
  url = running.server.url;
  consoleLink = `${url}/console#token=${encodeURIComponent(running.demo!.adminToken)}`;
  browser = await openBrowser(url);
  // Traffic for the journal's view, whose rows have toggles: a login is journaled.
  await logInOver(url, running.demo!.clientId, running.demo!.clientSecret);
  page = browser.page;
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

/** The console's views, each with what shows once it has loaded. */
const VIEWS = [
  ['Locations', 'table.locations tbody tr'],
  ['Purchase orders', 'table.orders tbody tr'],
  ['Inventory', '.chart svg .point'],
  ['Traffic', 'table.journal button.toggle'],
  ['Controls', '.clock-now .now'],
] as const;

/** focusProblems for all of `within` on `on`, each line prefixed with `where`. */
const problemsOf = async (on: Page, where: string, within = 'body'): Promise<string[]> =>
  (await focusProblems(on, { within, backward: true })).map((problem) => `${where}: ${problem}`);

/** Each problem once (a view's rows repeat the same control), with its count. */
const once = (problems: readonly string[]): string[] => {
  const counts = new Map<string, number>();
  for (const problem of problems) counts.set(problem, (counts.get(problem) ?? 0) + 1);
  return [...counts].map(([problem, count]) => (count === 1 ? problem : `${problem} (×${count})`));
};

/** Puts the focus just before `selector`'s first match, so the next Tab reaches it as a keyboard user's would. */
const focusBefore = async (on: Page, selector: string) => {
  await on.locator(selector).first().focus();
  await on.keyboard.press('Shift+Tab');
};

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} console: every control of every view and of the token form shows its focus and its edge at 3:1`, async () => {
    // The picker's choice, over a system that prefers the other.
    await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
    await page.goto(consoleLink);
    await page.waitForSelector('table.locations tbody tr');
    await page.getByLabel('Colour theme').selectOption(theme);
    const problems: string[] = [];
    for (const [name, shown] of VIEWS) {
      await page.click(`header nav a:has-text("${name}")`);
      await page.waitForSelector(`header nav a[aria-current="page"]:has-text("${name}")`);
      // Loaded afresh, so Tab starts from the top of the page, as a keyboard user's would.
      await page.reload();
      await page.waitForSelector(shown);
      problems.push(...(await problemsOf(page, name)));
    }
    // The reset's confirmation (Controls, the last view), shown only once asked for.
    await page.click('button[name="reset-sandbox"]');
    await focusBefore(page, '#reset-confirm button');
    problems.push(...(await problemsOf(page, 'the reset confirmation', '#reset-confirm')));
    await page.click('button[name="cancel-reset"]');

    const gate = await browser.context.newPage();
    try {
      await gate.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
      await gate.goto(`${url}/console#token=not-the-admin-token`);
      await gate.waitForSelector('.problem:has-text("refused")');
      // The form focuses its field itself, as a click would: from before it, Tab reaches it as a keyboard user's.
      await focusBefore(gate, 'input[name="token"]');
      problems.push(...(await problemsOf(gate, 'the token form')));
    } finally {
      await gate.close();
    }
    assert.deepEqual(once(problems), [], `${theme} console: focus or edges under ${NON_TEXT}:1`);
  });
}

/** A small phone's screen (iPhone SE): the header wraps to three rows, and the page below it is at its shortest. */
const SMALL_PHONE: Viewport = { width: 375, height: 667 };

test('console at phone width: the header wraps to three rows, and Shift+Tab back up every view leaves no focused control hidden under it', async () => {
  await page.goto(consoleLink);
  await page.waitForSelector('table.locations tbody tr');
  const headerHeight = () => page.locator('header').evaluate((header) => header.offsetHeight);
  const laptopHeader = await headerHeight();
  // The page already open is narrowed: its header is measured again as it wraps, not only when the console starts.
  await page.setViewportSize(SMALL_PHONE);
  const hidden: string[] = [];
  try {
    assert.ok((await headerHeight()) > 2 * laptopHeader, 'the header wraps at phone width');
    for (const [name, shown] of VIEWS) {
      await page.click(`header nav a:has-text("${name}")`);
      await page.waitForSelector(shown);
      // Shift+Tab from the bottom: going up, the browser scrolls a control only just into view, at the top.
      await page.locator(':is(a[href], button, input, select, textarea, summary):visible').last().focus();
      const up = await tabThrough(page, { backward: true });
      hidden.push(...up.hidden.map((what) => `${name}: focused, but ${what}`));
    }
  } finally {
    await page.setViewportSize(LAPTOP);
  }
  assert.deepEqual(hidden, []);
});

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} console: hovered buttons, links and rows keep their text at AA, and every checkbox's edge reaches 3:1`, async () => {
    await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
    await page.goto(consoleLink);
    await page.waitForSelector('table.locations tbody tr');
    await page.getByLabel('Colour theme').selectOption(theme);
    const problems: string[] = [];
    for (const [name, shown] of VIEWS) {
      await page.click(`header nav a:has-text("${name}")`);
      await page.waitForSelector(shown);
      const hovered = await hoverProblems(page, { selector: 'a[href], button, select, tr.entry' });
      const checkboxes = await weakDrawnEdges(page);
      problems.push(
        ...[
          ...hovered,
          ...checkboxes.map(
            (box) =>
              `checkbox: ${box.what}: ${hex(box.colour)} ${box.ratio.toFixed(2)}:1 against ${hex(box.background)}`,
          ),
        ].map((problem) => `${name}: ${problem}`),
      );
    }
    assert.deepEqual(
      once(problems),
      [],
      `${theme} console: text under ${AA}:1 when hovered, or checkboxes under ${NON_TEXT}:1`,
    );
  });
}

test('no request left the server’s origin', () => {
  assert.deepEqual(browser.offOrigin(), []);
});
