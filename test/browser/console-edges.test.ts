import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, LAPTOP, openBrowser, PHONE } from '../helpers/browser.js';
import { logInOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The console at its edges, as an integrator meets them: values longer than any demo one, and answers that are
 * not Larder's. The happy paths are in console.test.ts.
 */

let running: TestServer;
let browser: BrowserSession;
let page: Page;
let url: string;

/** The longest location id the fixtures API takes. */
const LONG_LOCATION = `loc-${'long'.repeat(49)}`;

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${url}/_larder${path}`, {
    method,
    headers: {
      authorization: `Bearer ${running.demo!.adminToken}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const view = async (name: string) => {
  await page.click(`header nav a:has-text("${name}")`);
  await page.waitForSelector(`header nav a[aria-current="page"]:has-text("${name}")`);
  await page.waitForLoadState('networkidle');
};

/** How far the page, and each table past its scroll box, reach beyond what the screen shows. */
const overflow = async () =>
  (await page.evaluate(`({
    page: document.documentElement.scrollWidth - window.innerWidth,
    tables: [...document.querySelectorAll('.scroll')].map((box) => box.scrollWidth - box.clientWidth),
  })`)) as { page: number; tables: number[] };

before(async () => {
  running = await startTestServer({ demo: true });
  url = running.server.url;
  const { clientId, clientSecret, adminToken } = running.demo!;
  assert.equal((await admin('POST', `/locations/${LONG_LOCATION}/purchaseOrders`, [])).status, 200);
  const rule = { match: { location: 'y'.repeat(200) }, effect: { type: 'latency', ms: 0 } };
  assert.equal((await admin('POST', '/faults', rule)).status, 201);
  const accessToken = await logInOver(url, clientId, clientSecret);
  const retail = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  // A 512-character path and a 512-character location header: journaled as sent.
  await fetch(`${url}/v1/${'segment'.repeat(73)}x`, { headers: retail });
  await fetch(`${url}/v1/purchaseOrders/search`, {
    method: 'POST',
    headers: { ...retail, 'platform-restaurant-external-id': 'x'.repeat(512) },
    body: '{}',
  });
  browser = await openBrowser(url, { path: `/console#token=${encodeURIComponent(adminToken)}` });
  page = browser.page;
  await page.waitForSelector('table.locations tbody tr');
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

test('long values (a 512-character path and location, a 200-character location id and rule) wrap, at laptop and phone width', async () => {
  for (const viewport of [LAPTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await view('Traffic');
    await page.waitForSelector(`table.journal tr.entry:has-text("${'x'.repeat(512)}")`);
    await page.click('table.journal tr.entry:has-text("segmentsegment")');
    await page.waitForSelector('table.journal tr.entry-detail pre');
    const traffic = await overflow();
    assert.ok(traffic.page <= 0, `Traffic at ${viewport.width}px: the page is ${traffic.page}px too wide`);
    // At laptop width the whole journal shows: one long value does not push Status and the rest off the card.
    if (viewport === LAPTOP)
      assert.deepEqual(traffic.tables, [0], `Traffic at ${viewport.width}px: the journal scrolls sideways`);
    await view('Controls');
    await page.waitForSelector('li.rule');
    const controls = await overflow();
    assert.ok(controls.page <= 0, `Controls at ${viewport.width}px: the page is ${controls.page}px too wide`);
  }
  await page.setViewportSize(LAPTOP);
  await view('Locations');
  await page.waitForSelector(`table.locations td:has-text("${LONG_LOCATION}")`);
  assert.deepEqual((await overflow()).tables, [0], 'the locations table scrolls sideways at laptop width');
});

test('an answer that is not Larder’s (a proxy’s HTML error page, a login page) is said in words, not as a JSON parse error, and the header says Larder is not answering until it does', async () => {
  await view('Traffic');
  await page.waitForSelector('table.journal tr.entry');
  const badge = page.locator('header .clock-badge');
  const aTime = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;
  const larder = '**/_larder/**';
  for (const [index, [status, html, expected]] of (
    [
      [502, '<html><body><h1>502 Bad Gateway</h1></body></html>', /502: Bad Gateway.*not Larder's answer/],
      [200, '<html><body>Sign in</body></html>', /not Larder's answer.*text\/html/],
    ] as const
  ).entries()) {
    // A console freshly opened: a miss soon after the last case's recovery would be Larder unsteady, believed
    // again only after STEADY_MS of answers (console/src/answering.ts, tested on its own).
    if (index > 0) {
      await page.reload();
      await view('Traffic');
      await page.waitForSelector('table.journal tr.entry');
    }
    await page.route(larder, (route) => route.fulfill({ status, contentType: 'text/html', body: html }));
    try {
      const problem = page.locator('.problem').first();
      await problem.waitFor();
      const text = (await problem.textContent()) ?? '';
      assert.match(text, expected);
      assert.doesNotMatch(text, /Unexpected token|is not valid JSON/);
      await badge.filter({ hasText: 'Larder not answering' }).waitFor();
    } finally {
      await page.unroute(larder);
    }
    await page.waitForSelector('.problem', { state: 'detached' });
    await badge.filter({ hasText: aTime }).waitFor();
  }
});

test('without the admin API, /console says why there is no console and how to have one', async () => {
  const plain = await startTestServer();
  const off = await openBrowser(plain.server.url);
  try {
    for (const path of ['/console', '/console/', '/console/assets/index.js']) {
      const response = await off.page.goto(`${plain.server.url}${path}`);
      assert.equal(response?.status(), 404);
      const text = (await off.page.textContent('body')) ?? '';
      assert.match(text, /runs without the admin API|the admin API, which this server runs without/);
      assert.match(text, /--admin-token/);
    }
    // Any other unknown path is still a plain 404.
    await off.page.goto(`${plain.server.url}/consoles`);
    assert.doesNotMatch((await off.page.textContent('body')) ?? '', /admin/);
    assert.deepEqual(off.offOrigin(), []);
  } finally {
    await off.close();
    await plain.stop();
  }
});

test('Controls: a jump to a time the clock cannot take is refused naming the field, not "Invalid time value"', async () => {
  await view('Controls');
  // A year of five digits, as a slip of the keyboard in the year part gives.
  await page.fill('input[name="at"]', '20266-01-01T00:00');
  await page.click('form:has(input[name="at"]) button[type="submit"]');
  const problem = page.locator('.card[aria-label="Clock"] .problem');
  await problem.waitFor();
  assert.match((await problem.textContent()) ?? '', /^Jump to \(UTC\): 20266-01-01T00:00 /);
  await page.fill('input[name="at"]', '');
});

test('Controls: a reset refused (a database not started as a demo, 409) says in words that nothing was reset', async () => {
  await view('Controls');
  // The server's answer to a non-demo database; a second server and browser just for it would take seconds.
  const resets = '**/_larder/reset';
  await page.route(resets, (route) =>
    route.fulfill({
      status: 409,
      json: {
        code: 40901,
        message: 'Only a demo database can be reset: this one was not first started as a demo.',
      },
    }),
  );
  try {
    await page.click('button[name="reset-sandbox"]');
    await page.click('button[name="confirm-reset"]');
    const problem = page.locator('.card[aria-label="Sandbox"] .problem');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /^Nothing was reset: .*not first started as a demo\.$/);
    assert.equal(await page.locator('#reset-confirm').count(), 0);
  } finally {
    await page.unroute(resets);
  }
});

test('Controls: an emptied "Advance by" asks for a number and leaves the clock where it was', async () => {
  await view('Controls');
  const before = (await (await admin('GET', '/clock')).json()) as { offsetSeconds: number };
  await page.fill('input[name="amount"]', '');
  await page.click('button[name="advance"]');
  assert.equal(await page.evaluate(`document.querySelector('input[name="amount"]').validity.valid`), false);
  // The same form advanced by a day when it still held one: the clock moved is seen by the next read.
  await page.fill('input[name="amount"]', '1');
  await page.selectOption('select[name="unit"]', { label: 'minutes' });
  await page.click('button[name="advance"]');
  await page.waitForSelector('.clock-now:has-text("+0d 0h 1m")');
  const after = (await (await admin('GET', '/clock')).json()) as { offsetSeconds: number };
  assert.equal(after.offsetSeconds - before.offsetSeconds, 60);
  await admin('DELETE', '/clock');
});

test('Controls: an emptied N or probability asks for a number, and a probability of 0, a rule that never fires, is refused naming the field', async () => {
  await view('Controls');
  const rules = async () =>
    ((await (await admin('GET', '/faults')).json()) as { rules: unknown[] }).rules.length;
  const before = await rules();
  const missing = `document.querySelector('input[name="n"]').validity.valueMissing`;
  for (const when of ['next', 'probability']) {
    await page.selectOption('select[name="when"]', when);
    await page.fill('input[name="n"]', '');
    assert.equal(await page.inputValue('input[name="n"]'), '', `${when}: the emptied field stays empty`);
    await page.click('button[name="add-fault"]');
    assert.equal(await page.evaluate(missing), true, `${when}: the form asks for a number`);
  }
  await page.fill('input[name="n"]', '0');
  await page.click('button[name="add-fault"]');
  const problem = page.locator('.card[aria-label="Fault rules"] .problem');
  await problem.waitFor();
  assert.match((await problem.textContent()) ?? '', /^Probability: 0 /);
  assert.equal(await rules(), before);
  await page.selectOption('select[name="when"]', 'next');
  await page.fill('input[name="n"]', '1');
});

test('keyboard: opening an order or an inventory entry moves the focus to it, so Tab goes on from there, not from the top', async () => {
  await view('Purchase orders');
  await page.waitForSelector('table.orders tbody tr');
  await page.focus('table.orders tbody tr >> nth=0 >> a');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.detail');
  assert.match(await page.evaluate('document.activeElement.textContent'), /^Purchase order/);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate('document.activeElement.textContent'), '← back to the list');
  await page.keyboard.press('Enter');
  await page.waitForSelector('table.orders tbody tr');

  await page.check('label:has-text("RECEIVED") >> nth=1 >> input');
  await page.click('form.filters button[type="submit"]');
  await page.locator(`p[data-search='${JSON.stringify({ purchaseOrderStatuses: ['RECEIVED'] })}']`).waitFor();
  await page.click('table.orders tbody tr >> nth=0 >> a');
  await page.focus('.detail .receive-link >> nth=0');
  await page.keyboard.press('Enter');
  await page.waitForSelector('h2:has-text("RECEIVE entry")');
  assert.match(await page.evaluate('document.activeElement.textContent'), /entry/);
});

test('empty states: a location with no records says so in Purchase orders and Inventory, with no bare table or empty picker', async () => {
  await page.goto(`${url}/console#/orders?location=${LONG_LOCATION}`);
  await page.waitForSelector('p.empty:has-text("No purchase orders at this location.")');
  assert.equal(await page.locator('table.orders').count(), 0);
  await page.goto(`${url}/console#/inventory?location=${LONG_LOCATION}`);
  await page.waitForSelector('p.empty:has-text("No inventory entries in this window.")');
  assert.equal(await page.locator('select[name="item"]').count(), 0);
});

test('accessibility: each fault rule’s Remove button is named for its rule', async () => {
  await view('Controls');
  await page.waitForSelector('li.rule');
  const ids = await page.locator('li.rule strong').allTextContents();
  assert.ok(ids.length > 0);
  for (const id of ids)
    assert.equal(await page.getByRole('button', { name: `Remove ${id}`, exact: true }).count(), 1);
});

test('keyboard: the focus ring of a header link is drawn whole, not cut off by the header’s scrolling nav', async () => {
  await view('Locations');
  await page.focus('header nav a >> nth=0');
  await page.keyboard.press('Tab');
  const fits = await page.evaluate(`(() => {
    const link = document.activeElement;
    const nav = link.closest('nav');
    const style = getComputedStyle(link);
    const reach = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
    const l = link.getBoundingClientRect();
    const n = nav.getBoundingClientRect();
    return style.outlineStyle !== 'none' && l.top - reach >= n.top && l.bottom + reach <= n.bottom;
  })()`);
  assert.equal(fits, true);
});

test('when Larder does not answer, Locations says so once, not once for the page and again for its table', async () => {
  await view('Traffic');
  const larder = '**/_larder/**';
  await page.route(larder, (route) => route.abort('connectionrefused'));
  try {
    // Both reads of the locations (the header's, for its picker, and the table's) have failed.
    let failed = 0;
    const bothFailed = new Promise<void>((resolve) =>
      page.on('requestfailed', (request) => {
        if (new URL(request.url()).pathname === '/_larder/locations' && ++failed === 2) resolve();
      }),
    );
    await page.click('header nav a:has-text("Locations")');
    await bothFailed;
    await page.locator('.card[aria-label="Locations"] .problem').waitFor();
    assert.equal(await page.locator('.problem').count(), 1);
  } finally {
    await page.unroute(larder);
  }
});

test('Controls: a slowBody rule takes its rate from the form, bounded as the server bounds it', async () => {
  await view('Controls');
  await page.selectOption('select[name="effect"]', 'slowBody');
  const rate = page.locator('input[name="bytesPerSecond"]');
  assert.equal(await rate.inputValue(), '1000');
  assert.deepEqual([await rate.getAttribute('min'), await rate.getAttribute('max')], ['10', '100000000']);
  await rate.fill('250');
  await page.selectOption('select[name="when"]', 'always');
  const before = ((await (await admin('GET', '/faults')).json()) as { rules: { id: string }[] }).rules;
  await page.click('button[name="add-fault"]');
  const added = page.locator('li.rule:has-text("slowBody 250")');
  await added.waitFor();
  const { rules } = (await (await admin('GET', '/faults')).json()) as {
    rules: { id: string; effect: unknown }[];
  };
  const rule = rules.find((r) => !before.some((b) => b.id === r.id));
  assert.deepEqual(rule?.effect, { type: 'slowBody', bytesPerSecond: 250 });
  await page.click(`button[name="remove-${rule.id}"]`);
  await added.waitFor({ state: 'detached' });
});

test('Traffic: an integration report that failed is asked again, not left failed until the next request comes in', async () => {
  await view('Traffic');
  await page.waitForSelector('table.journal tr.entry');
  const report = '**/_larder/report**';
  await page.route(report, (route) =>
    route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>502 Bad Gateway</h1>' }),
  );
  const failed = page.locator('.card:has(h2:has-text("Integration report")) .problem');
  try {
    // A new request in the journal has the report judged again, through the failing proxy.
    const { clientId, clientSecret } = running.demo!;
    await logInOver(url, clientId, clientSecret);
    await failed.waitFor();
  } finally {
    await page.unroute(report);
  }
  // No request comes in after it: the report comes back on its own.
  await failed.waitFor({ state: 'detached' });
});
