import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openApiDocument } from '../../src/server/openapi.js';
import { type BrowserSession, openBrowser } from './browser.js';
import { AA, hex, lowContrast, NON_TEXT, type WeakEdge, weakDrawnEdges } from './contrast.js';
import { focusProblems } from './focus.js';
import { hoverProblems, SETTLE } from './hover.js';
import { startTestServer, type TestServer } from './test-server.js';

/**
 * /docs with everything open, for its accessibility checks (docs-page.test.ts): every operation (with its fields,
 * Execute and its responses), every tag header and every schema expanded (its properties shown; a property's own
 * schema, listed and expanded in its own right, stays closed), and an answer shown.
 *
 * Opened by Swagger UI's own settings, not by clicks: the page's script is served with docExpansion "full" and
 * defaultModelsExpandDepth 2, so the page renders once. Opening them one click at a time re-renders the page each
 * time, and took minutes. The page resolves the document's references once for every part (docs-routes.ts; per
 * operation, Swagger UI took two minutes to draw them all), and the render still takes seconds: both themes are
 * checked on the one page drawn (chooseTheme), and the Tab walk covers the parts in WALKED. The dialog, hover and
 * edge checks (docs-dialog.test.ts) need one look of each control, not every copy of it: they open /docs as a user
 * first sees it, with the search operation opened and answered (its fields, Execute, Download), and so cost the
 * suite no second full render.
 */

type Theme = 'light' | 'dark';
/** The themes checked, in order: the first is the one /docs opens in. */
const THEMES = ['light', 'dark'] as const satisfies readonly Theme[];

interface Everything {
  running: TestServer;
  browser: BrowserSession;
  docs: Page;
  close(): Promise<void>;
}

/**
 * A demo server, the console's theme set to `theme` (over a system that prefers the other), /docs opened in it:
 * with everything open, or (`all` false) as a user first sees it, the operations listed and one opened.
 */
/**
 * How long /docs may take to draw everything open: a bound for failure, never waited out by a passing run (about
 * 15 s alone on a 2-core machine, 2026-12-03).
 */
const RENDER_MS = 120_000;

const openEverything = async (all: boolean): Promise<Everything> => {
  const theme = THEMES[0] as Theme;
  const running = await startTestServer({ demo: true });
  const url = running.server.url;
  // Stopped when the browser does not start (no Chromium here), or the server holds the test file open until its
  // hook's timeout.
  const browser = await openBrowser(url).catch(async (error: unknown) => {
    await running.stop();
    throw error;
  });
  const close = async () => {
    await browser.close();
    await running.stop();
  };
  try {
    const { page } = browser;
    await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
    await page.goto(`${url}/console#token=${encodeURIComponent(running.demo!.adminToken)}`);
    await page.waitForSelector('table.locations tbody tr');
    await page.getByLabel('Colour theme').selectOption(theme);

    const spec = openApiDocument(running.server.publicUrl);
    const operations = Object.values(spec.paths).flatMap((item) => Object.values(item)).length;
    const schemas = Object.keys(spec.components.schemas).length;
    const docs = await browser.context.newPage();
    await docs.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
    if (all)
      await docs.route(`${url}/docs/init.js`, async (route) => {
        const served = await (await route.fetch()).text();
        const everything = served
          .replace("docExpansion: 'list'", "docExpansion: 'full'")
          .replace('defaultModelsExpandDepth: 0', 'defaultModelsExpandDepth: 2');
        assert.notEqual(
          everything,
          served,
          'the page’s script no longer sets docExpansion and defaultModelsExpandDepth',
        );
        await route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: everything });
      });
    await docs.goto(`${url}/docs`);
    const search = docs.locator('#operations-retail-searchPurchaseOrders');
    if (all) {
      await docs
        .locator('button.execute')
        .nth(operations - 1)
        .waitFor({ timeout: RENDER_MS });
      const schemaArticles = docs.locator('section.models article[data-json-schema-level="0"]');
      await schemaArticles.nth(schemas - 1).waitFor({ timeout: RENDER_MS });
      assert.equal(await docs.locator('.opblock-body').count(), operations, 'every operation open');
      assert.equal(
        await docs
          .locator('section.models article[data-json-schema-level="0"] > .json-schema-2020-12-body')
          .count(),
        schemas,
        'every schema open',
      );
    } else {
      await search.locator('.opblock-summary').click();
      await search.locator('button.execute').waitFor({ timeout: 60_000 });
    }
    assert.equal(await docs.locator('html.dark-mode').count(), theme === 'dark' ? 1 : 0);

    await search.locator('button.execute').click();
    await search.locator('.live-responses-table .response').first().waitFor({ timeout: 60_000 });
    await search.locator('.opblock-section-request-body button[data-name="model"]').click();
    await search
      .locator('.opblock-section-request-body .json-schema-2020-12')
      .first()
      .waitFor({ timeout: 60_000 });
    return { running, browser, docs, close };
  } catch (error) {
    await close();
    throw error;
  }
};

/** Each problem once (the same badge or button recurs in every operation), with its count. */
const once = (problems: readonly string[]): string[] => {
  const counts = new Map<string, number>();
  for (const problem of problems) counts.set(problem, (counts.get(problem) ?? 0) + 1);
  return [...counts].map(([problem, count]) => (count === 1 ? problem : `${problem} (×${count})`));
};

/** Every piece of text under `within` under 4.5:1. */
const textProblems = async (docs: Page, within = 'body'): Promise<string[]> =>
  (await lowContrast(docs.locator(within).first())).map(
    (low) => `text under ${AA}:1: ${low.what} "${low.text}" ${low.ratio.toFixed(2)}:1`,
  );

/** Runs in the page: for each answer shown, the px between its copy button's right edge and Download's left. */
const ANSWER_BUTTONS_GAP = `[...document.querySelectorAll('.live-responses-table .highlight-code')].map((code) => {
  const copy = code.querySelector(':scope > .copy-to-clipboard')?.getBoundingClientRect();
  const download = code.querySelector(':scope > .download-contents')?.getBoundingClientRect();
  return copy === undefined || download === undefined ? null : download.left - copy.right;
})`;

/** Runs in the page: each element of /docs, outside the Authorize dialog, that is sticky or fixed. */
const PINNED = new Function(`return () => [...document.querySelectorAll('#swagger-ui *')]
  .filter((element) => element.closest('.dialog-ux') === null && ['sticky', 'fixed'].includes(getComputedStyle(element).position))
  .map((element) => element.tagName.toLowerCase() + (typeof element.className === 'string' && element.className !== '' ? '.' + element.className.trim().split(/\\s+/).join('.') : ''))`)() as () => string[];

/**
 * The parts of /docs whose every control a Tab walk visits, everything open: its head, its servers and Authorize,
 * and the platform's own operations (authentication, retail). The sandbox's and server's operations and the schemas
 * are drawn by the same Swagger UI components (their text and edges are checked with the rest); walking them too,
 * a key press and a read of the page per control, took over two minutes a theme, most of CI's time for the suite.
 */
const WALKED = [
  '.swagger-ui .information-container .info',
  '.swagger-ui .scheme-container',
  '.opblock-tag-section:has(> #operations-tag-authentication)',
  '.opblock-tag-section:has(> #operations-tag-retail)',
];

/**
 * Runs in the page: hides (`on` true) or shows again what /docs draws outside WALKED, the sandbox's and server's
 * operations and the schemas. Each key press restyles the whole page, and with everything open that took 40 ms a
 * press and most of the walks' 30 s a theme; hidden, the walks take about half as long and reach the same controls.
 * The text check reads the page with everything shown.
 */
const HIDE_UNWALKED = new Function(`return ([on, walked]) => {
  if (!on) {
    for (const part of document.querySelectorAll('[data-larder-unwalked]')) part.removeAttribute('data-larder-unwalked');
    return document.getElementById('larder-unwalked')?.remove();
  }
  for (const part of document.querySelectorAll('.opblock-tag-section, section.models'))
    if (!walked.some((selector) => part.matches(selector))) part.setAttribute('data-larder-unwalked', '');
  const style = document.createElement('style');
  style.id = 'larder-unwalked';
  style.textContent = '[data-larder-unwalked] { display: none !important; }';
  document.head.append(style);
}`)() as (args: [boolean, readonly string[]]) => void;

/**
 * Runs in the page: focuses the last control before `part`, so that the next Tab is a keyboard user's arriving at
 * it (false when none comes before it: then from the top); the pointer is away, so no hover shows.
 */
const FOCUS_BEFORE = new Function(`return (part) => {
  const section = document.querySelector(part);
  if (section === null) throw new Error('no ' + part + ' on /docs');
  const before = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter(
    (element) => element.tabIndex >= 0 && !element.disabled && element.getClientRects().length > 0 &&
      (section.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_PRECEDING) !== 0 && !section.contains(element),
  );
  const last = before.at(-1);
  last?.focus();
  return last !== undefined;
}`)() as (part: string) => boolean;

/** From the top of the page, as a keyboard user's first Tab after it loads; the pointer away, so no hover shows. */
const fromTheTop = async (docs: Page) => {
  await docs.evaluate('scrollTo(0, 0)');
  // A click on nothing: where the next Tab starts from.
  await docs.mouse.click(0, 0);
};

/**
 * Opens the Authorize dialog, the pointer away. The focus is inside it, and Tab cycles within it: a walk from there
 * comes round to where it started.
 */
const openAuthorize = async (docs: Page) => {
  await docs.locator('.auth-wrapper .btn.authorize').click();
  const dialog = docs.locator('.modal-ux');
  await dialog.locator('.auth-container').first().waitFor();
  await docs.mouse.move(0, 0);
  return dialog;
};

/** Runs in the page: whether the focus is in the Authorize dialog, and whether it is on `start`. */
const FOCUS_IN_DIALOG = new Function(`return (start) => [
  document.activeElement?.closest('[role="dialog"][aria-modal="true"]') != null,
  document.activeElement === start,
]`)() as (start: unknown) => [boolean, boolean];

/**
 * Runs in the page on the Authorize dialog: ids given twice, and labels whose `for` names no field of their own
 * scheme (Swagger UI gives each bearer scheme's field one id, so the second label named the first field).
 */
const LABELS_ASTRAY = new Function(`return (modal) => {
  const ids = [...modal.querySelectorAll('[id]')].map((element) => element.id);
  return {
    repeated: ids.filter((id, at) => ids.indexOf(id) !== at),
    astray: [...modal.querySelectorAll('.auth-container label[for]')]
      .filter((label) => !label.closest('.auth-container').contains(document.getElementById(label.htmlFor)))
      .map((label) => label.htmlFor),
  };
}`)() as (modal: unknown) => { repeated: string[]; astray: string[] };

/**
 * Presses `key` (Tab or Shift+Tab) from the focused element until the focus comes back to it: why it did not, having
 * left the Authorize dialog or gone on too long, or undefined.
 */
const roundTheDialog = async (docs: Page, key: 'Tab' | 'Shift+Tab'): Promise<string | undefined> => {
  const start = await docs.evaluateHandle('document.activeElement');
  try {
    for (let press = 1; press <= 50; press++) {
      await docs.keyboard.press(key);
      const [inside, back] = await docs.evaluate(FOCUS_IN_DIALOG, start);
      if (!inside) return `${key} ${press} times left the dialog`;
      if (back) return undefined;
    }
    return `${key} 50 times never came back to where it started`;
  } finally {
    await start.dispose();
  }
};

/**
 * The theme `theme` chosen in the console, over a system that prefers the other: /docs follows the console's choice
 * in every open tab, restyling the page it has drawn (a second render of everything would cost as long again).
 */
const chooseTheme = async ({ browser, docs }: Everything, theme: Theme) => {
  const system = theme === 'dark' ? 'light' : 'dark';
  await browser.page.emulateMedia({ colorScheme: system });
  await docs.emulateMedia({ colorScheme: system });
  await browser.page.getByLabel('Colour theme').selectOption(theme);
  await docs
    .locator(theme === 'dark' ? 'html.dark-mode' : 'html:not(.dark-mode)')
    .waitFor({ state: 'attached' });
  // Swagger UI's buttons ease into their new colours (transition: all .3s): measured mid-way they read low.
  await docs.evaluate(SETTLE);
};

/**
 * The server, browser and /docs (everything open, or `all` false one operation) in the first theme, before the
 * tests that `define` adds, closed after them, and a last test that no request left the server's origin.
 */
const withEverything = (all: boolean, define: (everything: () => Everything) => void) => {
  let everything: Everything | undefined;
  // The hook has the render's bound and a minute for the rest.
  before(
    async () => {
      everything = await openEverything(all);
    },
    { timeout: RENDER_MS + 60_000 },
  );
  after(async () => {
    await everything?.close();
  });
  define(() => everything!);
  test('no request left the server’s origin', () => {
    assert.deepEqual(everything!.browser.offOrigin(), []);
  });
};

/**
 * /docs's page in each theme, everything open. All its text meets WCAG AA (4.5:1, placeholders included, and large
 * text too: WCAG's 3:1 allowance for it is not taken); in the parts walked (WALKED) Tab reaches every control, each
 * shows its focus at 3:1 (WCAG 2.4.7, 1.4.11) and none is out of sight (2.4.11), and every text field, select and
 * button that draws a border shows its edge at 3:1.
 */
export const pageTests = () =>
  withEverything(true, (everything) => {
    for (const theme of THEMES)
      test(`${theme} /docs, everything open: all text meets AA; in its head and the platform's operations Tab reaches every control and shows its focus, and every edge, at 3:1`, async () => {
        const { docs } = everything();
        await chooseTheme(everything(), theme);
        const problems = await textProblems(docs);
        await docs.evaluate(HIDE_UNWALKED, [true, WALKED] as [boolean, readonly string[]]);
        try {
          for (const part of WALKED) {
            if (!(await docs.evaluate(FOCUS_BEFORE, part))) await fromTheTop(docs);
            problems.push(
              ...(await focusProblems(docs, { within: part, max: 2_000 })).map(
                (problem) => `${part}: ${problem}`,
              ),
            );
          }
        } finally {
          await docs.evaluate(HIDE_UNWALKED, [false, WALKED] as [boolean, readonly string[]]);
        }
        // What could hide a focused element once the browser has scrolled to it (WCAG 2.4.11): the walks above
        // found none, and with nothing sticky or fixed (but the Authorize dialog) a walk back up the page could find
        // none either, so it is not taken (it would take as long again). Should that change, this says so.
        problems.push(
          ...(await docs.evaluate(PINNED)).map(
            (pinned) => `sticky or fixed, so Shift+Tab may hide focus under it: ${pinned}`,
          ),
        );
        assert.deepEqual(once(problems), []);
      });
  });

/**
 * /docs in each theme, its operations listed and the search one open and answered: the Authorize dialog as pageTests
 * checks the page (and going back up with Shift+Tab); and, page and dialog, the text of each kind of button, link,
 * operation summary and tag header while hovered (4.5:1), and the edges the browser draws (checkboxes) or that lie
 * over a code block (Download) at 3:1.
 */
export const dialogTests = () =>
  withEverything(false, (everything) => {
    for (const theme of THEMES) {
      test(`${theme} /docs, the Authorize dialog: all text meets AA; Tab shows every control’s focus, and every edge, at 3:1`, async () => {
        const { docs } = everything();
        await chooseTheme(everything(), theme);
        const dialog = await openAuthorize(docs);
        try {
          // Only the dialog: the page behind it lies under the dialog's backdrop.
          const problems = [
            ...(await textProblems(docs, '.modal-ux')),
            ...(await focusProblems(docs, { within: '.modal-ux', backward: true })),
          ];
          assert.deepEqual(once(problems), []);
        } finally {
          await dialog.locator('button.close-modal').click();
        }
      });

      test(`${theme} /docs, an operation open: hovered buttons, links, operation summaries and tag headers keep their text at AA; checkboxes' and Download's edges reach 3:1, the Authorize dialog's too`, async () => {
        const { docs } = everything();
        await chooseTheme(everything(), theme);
        const edgeProblems = (edges: readonly WeakEdge[]) =>
          edges.map(
            (edge) =>
              `edge under ${NON_TEXT}:1: ${edge.what}: ${hex(edge.colour)} ${edge.ratio.toFixed(2)}:1 against ${hex(edge.background)}`,
          );
        const problems = [
          ...(await hoverProblems(docs, {
            within: '#swagger-ui',
            selector: 'a[href], button, select, summary, .opblock-summary, .opblock-tag',
          })),
          // An answer's Download button lies over its code block, not on its parent: measured as drawn.
          ...edgeProblems(
            await weakDrawnEdges(docs, {
              within: '#swagger-ui',
              selector: 'input[type="checkbox"], input[type="radio"], .download-contents',
            }),
          ),
        ];
        const dialog = await openAuthorize(docs);
        try {
          problems.push(
            ...(await hoverProblems(docs, { within: '.modal-ux' })).map(
              (problem) => `the Authorize dialog: ${problem}`,
            ),
            // Swagger UI draws a scope's checkbox as a span beside a hidden input.
            ...edgeProblems(
              await weakDrawnEdges(docs, {
                within: '.modal-ux',
                selector: 'input[type="checkbox"], input[type="radio"], .checkbox .item',
              }),
            ).map((problem) => `the Authorize dialog: ${problem}`),
          );
        } finally {
          await dialog.locator('button.close-modal').click();
        }
        assert.deepEqual(once(problems), []);
      });
    }

    test('/docs, an answer: its copy button and Download stand apart, however wide the font draws Download', async () => {
      const gaps = (await everything().docs.evaluate(ANSWER_BUTTONS_GAP)) as (number | null)[];
      assert.ok(gaps.length > 0, 'an answer is shown');
      for (const gap of gaps) assert.ok(gap !== null && gap >= 4, `${gap} px between them`);
    });

    test('/docs, the Authorize dialog is a modal dialog for the keyboard (WAI-ARIA APG): the focus moves into it, Tab and Shift+Tab cycle within it, Escape or its close button closes it and the focus goes back to the button that opened it', async () => {
      const { docs } = everything();
      const dialog = docs.getByRole('dialog', { name: 'Available authorizations' });
      const focusInDialog = async () => (await docs.evaluate(FOCUS_IN_DIALOG, null))[0];
      const isFocused = async (opener: Locator) => (await opener.evaluate(FOCUS_IN_DIALOG))[1];

      const authorize = docs.locator('.auth-wrapper .btn.authorize');
      await authorize.focus();
      await docs.keyboard.press('Enter');
      await dialog.waitFor();
      assert.ok(await focusInDialog(), 'opened, the focus is in the dialog');
      assert.deepEqual(await dialog.evaluate(LABELS_ASTRAY), { repeated: [], astray: [] });
      assert.equal(await roundTheDialog(docs, 'Tab'), undefined);
      assert.equal(await roundTheDialog(docs, 'Shift+Tab'), undefined);
      await docs.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.ok(await isFocused(authorize), 'closed by Escape, the focus is back on Authorize');

      // An operation's lock opens the dialog with its schemes only. Once those are authorized it has no field for
      // Swagger UI to focus.
      const lock = docs.locator('#operations-authentication-oauthToken .authorization__btn');
      await lock.focus();
      await docs.keyboard.press('Enter');
      await dialog.waitFor();
      await dialog.locator('#auth-basic-username').fill('client');
      await dialog.locator('#auth-basic-password').fill('secret');
      await dialog.getByRole('button', { name: 'Apply credentials' }).click();
      const logout = dialog.getByRole('button', { name: 'Remove authorization' });
      await logout.waitFor();
      await dialog.locator('button.close-modal').click();
      await dialog.waitFor({ state: 'detached' });
      assert.ok(await isFocused(lock), 'closed by its close button, the focus is back on the lock');
      await docs.keyboard.press('Enter');
      await dialog.waitFor();
      try {
        assert.ok(await focusInDialog(), 'opened with no field, the focus is in the dialog');
        assert.equal(await roundTheDialog(docs, 'Shift+Tab'), undefined);
      } finally {
        await logout.click();
        await docs.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
      assert.ok(await isFocused(lock), 'closed by Escape, the focus is back on the lock');
    });
  });
