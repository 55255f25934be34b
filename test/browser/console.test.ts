import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, LAPTOP, openBrowser, PHONE } from '../helpers/browser.js';
import { logInOver, searchOrdersOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The web console in a real browser against a demo server: every view renders the demo data (charts with points),
 * the clock moved in the console changes what a search returns, a fault added in the console shows in the
 * journal, the layout holds at phone width, and no request leaves the server's origin. Screenshots of each view
 * are saved for the README.
 */

const DAY = 86_400_000;
let running: TestServer;
let browser: BrowserSession;
let page: Page;
let url: string;
let demo: NonNullable<TestServer['demo']>;
let location: string;

/** A retail search by the demo client, from outside the browser: the integration's traffic. */
const retailSearch = async (pageSize = 5) =>
  searchOrdersOver(
    url,
    await logInOver(url, demo.clientId, demo.clientSecret),
    location,
    `?pageSize=${pageSize}`,
  );

const view = async (name: string) => {
  await page.click(`header nav a:has-text("${name}")`);
  await page.waitForSelector(`header nav a[aria-current="page"]:has-text("${name}")`);
};

/**
 * From the view's unfiltered search, searches purchase orders modified from `day` on; answers the count the console
 * shows for that search. The unfiltered search is waited for first: the form takes the route's search as it renders
 * it, so a date typed while a move to the view was still rendering was wiped, and the search went out unfiltered.
 */
const ordersModifiedFrom = async (day: string): Promise<number> => {
  await page.locator(`p[data-search='{}']`).waitFor();
  await page.fill('input[name="startDate"]', day);
  await page.click('form.filters button[type="submit"]');
  const shown = page.locator(`p[data-search='${JSON.stringify({ updatedDateRange: { startDate: day } })}']`);
  await shown.waitFor();
  return Number(await shown.locator('.result-count').textContent());
};

before(async () => {
  // A limit no test reaches, so the Controls view has counts to show.
  running = await startTestServer({
    demo: true,
    config: { rateLimit: [{ limit: 100_000, windowMs: 3_600_000 }] },
  });
  url = running.server.url;
  demo = running.demo!;
  location = (await running.store.locations.list())[0]!.id;
  assert.equal((await retailSearch()).status, 200);
  browser = await openBrowser(url, { path: `/console#token=${encodeURIComponent(demo.adminToken)}` });
  page = browser.page;
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

test('the console opens with the token from the fragment, which leaves the address bar and never reaches the server', async () => {
  await page.waitForSelector('table.locations tbody tr');
  assert.doesNotMatch(page.url(), /token=/);
  assert.ok(browser.requests.every((request) => !request.includes(demo.adminToken)));
  const response = await fetch(`${url}/console`);
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
});

test('Locations: every location with its record counts and date spans', async () => {
  const expected = await running.store.locations.list();
  const rows = await page.$$eval('table.locations tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
  );
  assert.equal(rows.length, expected.length);
  for (const [i, location] of expected.entries()) {
    const row = rows[i]!;
    assert.match(row[0]!, new RegExp(location.id));
    assert.equal(row[1], String(location.purchaseOrders));
    assert.equal(row[3], String(location.inventoryEntries));
    assert.match(row[2]!, /^\d{4}-\d{2}-\d{2} → \d{4}-\d{2}-\d{2}$/);
  }
  await browser.screenshot('console-locations');
});

test('Purchase orders: a page of the table, the next page, an order with its items, totals and RECEIVE links', async () => {
  await view('Purchase orders');
  await page.waitForSelector('table.orders tbody tr');
  assert.equal(await page.locator('table.orders tbody tr').count(), 25);
  const firstPage = await page.textContent('table.orders tbody');
  await page.click('button:has-text("Next")');
  await page.locator('main p[aria-live]:has-text("page 2")').waitFor();
  assert.notEqual(await page.textContent('table.orders tbody'), firstPage);
  await browser.screenshot('console-orders');

  // A received order links its receipts to their RECEIVE inventory entries.
  await page.check('label:has-text("RECEIVED") >> nth=1 >> input');
  await page.click('form.filters button[type="submit"]');
  await page.locator(`p[data-search='${JSON.stringify({ purchaseOrderStatuses: ['RECEIVED'] })}']`).waitFor();
  assert.deepEqual(
    [...new Set(await page.locator('table.orders tbody .status').allTextContents())],
    ['RECEIVED'],
  );
  // The search and its page are in the route: another view and Back, or a reload, show the same page of it.
  const received = `p[data-search='${JSON.stringify({ purchaseOrderStatuses: ['RECEIVED'] })}']`;
  await page.click('button:has-text("Next")');
  await page.locator(`${received}:has-text("page 2")`).waitFor();
  const secondPage = await page.textContent('table.orders tbody');
  await view('Traffic');
  await page.goBack();
  await page.locator(`${received}:has-text("page 2")`).waitFor();
  assert.equal(await page.textContent('table.orders tbody'), secondPage);
  assert.equal(await page.isChecked('label:has-text("RECEIVED") >> nth=1 >> input'), true);
  await page.reload();
  await page.locator(`${received}:has-text("page 2")`).waitFor();
  assert.equal(await page.textContent('table.orders tbody'), secondPage);
  await page.click('button:has-text("Previous")');
  await page.locator(`${received}:has-text("page 1")`).waitFor();
  // An order's "back to the list" returns to the search it was opened from.
  await page.click('table.orders tbody tr >> nth=0 >> a');
  await page.waitForSelector('.detail .receive-link');
  await page.click('a:has-text("back to the list")');
  await page.locator(`${received}:has-text("page 1")`).waitFor();
  await page.click('table.orders tbody tr >> nth=0 >> a');
  await page.waitForSelector('.detail .receive-link');
  assert.match((await page.textContent('.detail')) ?? '', /Total cost/);
  assert.ok((await page.locator('.detail table tbody tr').count()) > 0);
  await browser.screenshot('console-order-detail');
  await page.click('.detail .receive-link >> nth=0');
  await page.waitForSelector('h2:has-text("RECEIVE entry")');
});

test('Inventory: the stock chart of an item has points marked by type; the spend chart has bars', async () => {
  await view('Inventory');
  await page.waitForSelector('.chart svg circle.point');
  const points = await page.locator('.chart svg circle.point').count();
  assert.ok(points > 1, `${points} points`);
  assert.ok((await page.locator('.chart svg rect.bar').count()) > 1);
  assert.ok((await page.locator('.legend li').count()) > 1);
  // Another item charts its own entries.
  const second = await page.locator('select[name="item"] option').nth(1).getAttribute('value');
  const title = await page.textContent('.card h3');
  await page.selectOption('select[name="item"]', second!);
  await page
    .locator('.card h3')
    .filter({ hasNotText: title ?? '' })
    .waitFor();
  assert.ok((await page.locator('.chart svg circle.point').count()) > 0);
  await browser.screenshot('console-inventory');
  // To one of its entries and Back: the same item and window, not the default ones.
  await page.selectOption('select[name="days"]', '180');
  await page.waitForURL(/days=180/);
  await page.click('.card details summary');
  await page.click('ul.entries li a >> nth=0');
  await page.waitForURL(/#\/entry/);
  await page.goBack();
  await page.waitForSelector('.chart svg circle.point');
  assert.equal(await page.inputValue('select[name="item"]'), second);
  assert.equal(await page.inputValue('select[name="days"]'), '180');

  // Another location: its own items and charts, nothing carried over from the first.
  const other = (await running.store.locations.list())[1]!.id;
  await page.selectOption('select[name="location"]', other);
  await page.waitForURL(new RegExp(`location=${other}`));
  await page.waitForSelector('.chart svg circle.point');
  assert.equal(await page.locator('.problem').count(), 0);
});

test('Traffic: the journal lists the integration’s requests, an entry opens, filters by operation, the report sits beside it', async () => {
  // A login with something that is no client id: journaled as "(not a client id)", never the report's default.
  await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      clientId: 'pasted-secret',
      clientSecret: 'x',
      userAccessType: 'PLATFORM_MACHINE_CLIENT',
    }),
  });
  await view('Traffic');
  await page.waitForSelector('table.journal tr.entry');
  assert.match((await page.textContent('table.journal')) ?? '', /searchPurchaseOrders/);
  await page.click('table.journal tr.entry >> nth=0');
  await page.waitForSelector('table.journal tr.entry-detail pre');
  assert.match((await page.textContent('tr.entry-detail pre')) ?? '', /"requestId"/);
  const toggle = 'table.journal tr.entry >> nth=0 >> button';
  assert.equal(await page.getAttribute(toggle, 'aria-expanded'), 'true');
  // From the keyboard, a real button named for its request: Space closes it, Enter opens it again.
  assert.match(
    (await page.getAttribute(toggle, 'aria-label')) ?? '',
    /^Details of \S+ \S+, \d{3}, at \d{4}-/,
  );
  await page.focus(toggle);
  await page.keyboard.press('Space');
  await page.waitForSelector('table.journal tr.entry-detail', { state: 'detached' });
  await page.keyboard.press('Enter');
  await page.waitForSelector('table.journal tr.entry-detail pre');
  await page.waitForSelector(`h2:has-text("Integration report: ${demo.clientId}")`);
  // Live: a new request shows up without reloading.
  const rows = await page.locator('table.journal tr.entry').count();
  await retailSearch(2);
  await page.locator('table.journal tr.entry').nth(rows).waitFor();
  await browser.screenshot('console-traffic');
  // Filtered by operation: only that operation's entries remain; back to any, they all come back.
  await page.selectOption('select[name="operation"]', 'authenticationLoginPost');
  await page
    .locator('table.journal tr.entry')
    .filter({ hasText: 'searchPurchaseOrders' })
    .first()
    .waitFor({ state: 'detached' });
  const operations = await page.locator('table.journal tr.entry').allTextContents();
  assert.ok(operations.length > 0);
  assert.ok(
    operations.every((row) => row.includes('authenticationLoginPost')),
    operations.join('\n'),
  );
  // The filters are in the route: another view and Back show the same filtered journal.
  assert.match(page.url(), /operation=authenticationLoginPost/);
  await view('Controls');
  await page.goBack();
  await page.waitForSelector('table.journal tr.entry');
  assert.equal(await page.inputValue('select[name="operation"]'), 'authenticationLoginPost');
  assert.ok(
    (await page.locator('table.journal tr.entry').allTextContents()).every((row) =>
      row.includes('authenticationLoginPost'),
    ),
  );
  await page.selectOption('select[name="operation"]', '');
  await page.locator('table.journal tr.entry').filter({ hasText: 'searchPurchaseOrders' }).first().waitFor();
  // Every status seen is offered, an integration's own 400s too, not only a fixed few.
  assert.equal((await retailSearch(9999)).status, 400);
  // By its text: Preact sets an option's value as a property, leaving no attribute when it equals the text.
  await page.locator('select[name="status"] option', { hasText: /^400$/ }).waitFor({ state: 'attached' });
  await page.selectOption('select[name="status"]', '400');
  const codes = page.locator('table.journal tr.entry .code');
  await codes.filter({ hasNotText: /^400$/ }).first().waitFor({ state: 'detached' });
  assert.ok((await codes.allTextContents()).includes('400'));
  await page.selectOption('select[name="status"]', '');
});

test('Traffic: a report over a journal that dropped its oldest entries says earlier traffic was not judged', async () => {
  // The server's own answer with `dropped` raised: filling a 10,000-entry journal would take the test minutes.
  const reports = (url: URL) => url.pathname === '/_larder/report';
  await page.route(reports, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), dropped: 7 } });
  });
  try {
    assert.equal((await retailSearch(1)).status, 200);
    const note = page.locator('[data-testid="journal-dropped"]');
    await note.waitFor();
    assert.match(
      (await note.textContent()) ?? '',
      /dropped its 7 oldest entries .* earlier traffic was not judged/,
    );
  } finally {
    await page.unroute(reports);
  }
});

test('Controls: advancing the clock in the console changes what a search returns', async () => {
  const now = Date.parse(((await (await adminGet('/clock')).json()) as { now: string }).now);
  const tomorrow = new Date(now + DAY).toISOString().slice(0, 10);
  await view('Purchase orders');
  assert.equal(await ordersModifiedFrom(tomorrow), 0, 'nothing is modified tomorrow yet');

  await view('Controls');
  await page.fill('input[name="amount"]', '3');
  await page.selectOption('select[name="unit"]', { label: 'days' });
  const shown = await page.textContent('.clock-now .now');
  await page.click('button[name="advance"]');
  await page
    .locator('.clock-now .now')
    .filter({ hasNotText: shown ?? '' })
    .waitFor();
  assert.match((await page.textContent('.clock-now')) ?? '', /\+3d 0h/);

  await view('Purchase orders');
  const after = await ordersModifiedFrom(tomorrow);
  assert.ok(after > 0, `${after} orders modified since ${tomorrow} once the clock moved 3 days on`);
});

test('the clock moved elsewhere (a terminal, a test suite) refreshes the open view when the tab is back in front', async () => {
  const now = Date.parse(((await (await adminGet('/clock')).json()) as { now: string }).now);
  const tomorrow = new Date(now + DAY).toISOString().slice(0, 10);
  await view('Purchase orders');
  assert.equal(await ordersModifiedFrom(tomorrow), 0, 'nothing is modified tomorrow yet');
  assert.equal((await adminSend('POST', '/clock/advance', { seconds: (3 * DAY) / 1000 })).status, 200);
  // The user comes back from the terminal: neither Search nor a move, the same search shows the days passed.
  await page.evaluate('dispatchEvent(new Event("focus"))');
  await page
    .locator(
      `p[data-search='${JSON.stringify({ updatedDateRange: { startDate: tomorrow } })}'] .result-count`,
    )
    .filter({ hasNotText: /^0$/ })
    .waitFor();
  assert.equal(await page.inputValue('input[name="startDate"]'), tomorrow);
});

test('Controls: a fault rule added in the console shows in the journal view; one is removed, then all', async () => {
  await view('Controls');
  await page.selectOption('select[name="effect"]', 'status');
  await page.selectOption('select[name="status"]', '503');
  await page.fill('input[name="operation"]', 'searchPurchaseOrders');
  await page.selectOption('select[name="when"]', 'next');
  await page.fill('input[name="n"]', '1');
  await page.click('button[name="add-fault"]');
  await page.waitForSelector('ol.rules li.rule:has-text("status")');
  await browser.screenshot('console-controls');

  assert.equal((await retailSearch()).status, 503);
  await view('Traffic');
  await page.waitForSelector('table.journal .fault:has-text("status=503")');

  // A second rule leaves the first one's counters as they were; removing the first leaves the second.
  await view('Controls');
  await page.waitForSelector('li.rule:has-text("rule-1"):has-text("matched 1, applied 1")');
  await page.selectOption('select[name="effect"]', 'latency');
  await page.fill('input[name="ms"]', '0');
  await page.selectOption('select[name="when"]', 'always');
  await page.click('button[name="add-fault"]');
  await page.waitForSelector('li.rule:has-text("rule-2")');
  assert.match((await page.textContent('li.rule:has-text("rule-1")')) ?? '', /matched 1, applied 1/);
  await page.click('button[name="remove-rule-1"]');
  await page.waitForSelector('li.rule:has-text("rule-1")', { state: 'detached' });
  assert.equal(await page.locator('li.rule').count(), 1);

  await page.click('button[name="clear-faults"]');
  await page.waitForSelector('p.empty:has-text("No fault rules")');
  assert.equal((await retailSearch()).status, 200);
});

test("Controls: the rules' counters and the clock follow changes made elsewhere while the page stays open", async () => {
  await view('Controls');
  const before = (await (await adminGet('/clock')).json()) as { now: string; frozen: boolean };
  await adminSend('PUT', '/clock', { now: '2026-01-02T03:04:05.000Z', frozen: true });
  await page.waitForSelector('.clock-now .now:has-text("2026-01-02 03:04:05")');
  await adminSend('PUT', '/clock', before);

  const rule = { match: { operation: 'searchPurchaseOrders' }, effect: { type: 'latency', ms: 0 } };
  await adminSend('POST', '/faults', rule);
  await page.waitForSelector('li.rule:has-text("matched 0, applied 0")');
  await retailSearch();
  await retailSearch();
  await page.waitForSelector('li.rule:has-text("matched 2, applied 2")');
  await adminSend('DELETE', '/faults');
});

test('Controls: the rate limits show what the client used at its location, and Clear counts starts them again', async () => {
  await view('Controls');
  await page.waitForSelector('p.muted:has-text("100,000 per 1 h")');
  await adminSend('DELETE', '/rate-limits');
  await page.waitForSelector('p.empty:has-text("Nothing counted")');
  await retailSearch();
  await retailSearch();
  // Two searches at the location; two logins from this address.
  const row = page.locator(`table.rate-limits tr:has-text("${demo.clientId}"):has-text("at ${location}")`);
  await row.locator('td.number:has-text("2 of 100,000")').waitFor();
  await page.locator('table.rate-limits tr:has-text("address 127.0.0.1")').waitFor();
  await browser.screenshot('console-rate-limits');
  await page.click('button[name="clear-rate-limits"]');
  await page.waitForSelector('p.empty:has-text("Nothing counted")');
  const state = (await (await adminGet('/rate-limits')).json()) as { counted: unknown[] };
  assert.deepEqual(state.counted, []);
});

test('Traffic: when Larder does not answer, the rows stay, the page says so, and the header clock stops until it answers', async () => {
  await view('Traffic');
  await page.waitForSelector('table.journal tbody tr');
  const badge = page.locator('header .clock-badge');
  const aTime = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;
  await badge.filter({ hasText: aTime }).waitFor();
  await page.route('**/_larder/**', (route) => route.abort());
  await page.waitForSelector('.problem:has-text("Larder did not answer")');
  assert.ok((await page.locator('table.journal tbody tr').count()) > 0);
  assert.equal(await page.locator('p.empty:has-text("No requests yet")').count(), 0);
  // No time ticking on as if the console knew it: the badge says why there is none.
  await badge.filter({ hasText: 'Larder not answering' }).waitFor();
  assert.doesNotMatch((await badge.textContent()) ?? '', /\d{2}:\d{2}/);
  await page.unroute('**/_larder/**');
  await page.waitForSelector('.problem:has-text("Larder did not answer")', { state: 'detached' });
  await badge.filter({ hasText: aTime }).waitFor();
});

test('Traffic: Clear journal (from the keyboard) empties the whole journal, and the list follows at once', async () => {
  await view('Traffic');
  await page.waitForSelector('table.journal tr.entry');
  await page.focus('button[name="clear-journal"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('p.empty:has-text("No requests yet")');
  await page.waitForSelector('[role="status"]:has-text("The journal was cleared")');
  const listed = (await (await adminGet('/requests')).json()) as { requests: unknown[] };
  assert.equal(listed.requests.length, 0);
  assert.equal((await retailSearch(1)).status, 200);
  await page.waitForSelector('table.journal tr.entry');
});

test('Controls: Reset sandbox asks in the page first, saying what it does; confirmed, it brings back the first start and the views follow', async () => {
  await view('Controls');
  // What a reset undoes: a fault rule, the clock moved on (the earlier tests moved it days).
  assert.equal((await adminSend('POST', '/faults', { effect: { type: 'latency', ms: 0 } })).status, 201);
  await page.waitForSelector('li.rule');
  const active = () => page.evaluate('document.activeElement?.getAttribute("name")');
  // From the keyboard: the button opens the confirmation and its Cancel takes the focus; Escape closes it, the
  // focus back on the button, and nothing was reset.
  await page.focus('button[name="reset-sandbox"]');
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('group', { name: 'Reset the sandbox?' });
  await confirm.waitFor();
  assert.match(
    (await confirm.textContent()) ?? '',
    /demo data.*demo client.*real time.*journal.*fault rules/,
  );
  assert.equal(await page.getAttribute('button[name="reset-sandbox"]', 'aria-expanded'), 'true');
  assert.equal(await active(), 'cancel-reset');
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await active(), 'reset-sandbox');
  assert.equal(((await (await adminGet('/faults')).json()) as { rules: unknown[] }).rules.length, 1);

  await page.keyboard.press('Enter');
  await confirm.waitFor();
  await page.keyboard.press('Shift+Tab');
  assert.equal(await active(), 'confirm-reset');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card[aria-label="Sandbox"] [role="status"]:has-text("Reset:")');
  assert.equal(await active(), 'reset-sandbox');
  await page.waitForSelector('p.empty:has-text("No fault rules")');
  await page.waitForSelector('.clock-now:has-text("real time")');
  const clock = (await (await adminGet('/clock')).json()) as { now: string; offsetSeconds: number };
  assert.equal(clock.offsetSeconds, 0);
  await page
    .locator('header .clock-badge')
    .filter({ hasText: clock.now.slice(0, 10) })
    .waitFor();
});

test('a location loaded while the console is open is offered at the next move; a link to one not there says so', async () => {
  await view('Purchase orders');
  assert.equal((await adminSend('POST', '/locations/loc-late/purchaseOrders', [])).status, 200);
  await view('Inventory');
  await page.waitForSelector('select[name="location"] option[value="loc-late"]', { state: 'attached' });
  assert.equal((await adminSend('DELETE', '/locations/loc-late')).status, 200);

  await page.goto(`${url}/console#/orders?location=loc-late`);
  await page.waitForSelector('.problem:has-text("No location \\"loc-late\\"")');
  assert.equal(await page.locator('table.orders').count(), 0);
  await page.goto(`${url}/console#/nowhere`);
  await page.waitForSelector('.problem:has-text("no page")');
});

test('a console link opened in the tab already showing the console takes its token and leaves the address bar', async () => {
  await page.goto(`${url}/console#token=not-the-admin-token`);
  await page.waitForSelector('.problem:has-text("That admin token was refused")');
  assert.doesNotMatch(page.url(), /token=/);
  // The token field has the focus, so the next token can be pasted straight away.
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), 'Admin token');
  await page.goto(`${url}/console#token=${encodeURIComponent(demo.adminToken)}`);
  await page.waitForSelector('table.locations tbody tr');
  assert.doesNotMatch(page.url(), /token=/);
});

test('a token refused mid-session (Larder restarted with another) brings the token form back at once, not a bare 401', async () => {
  // Every admin call but the header's clock read goes with another token: the view's own read is refused, and
  // the form must come from that, not from the clock read seconds later.
  const refused = (request: URL) =>
    request.pathname.startsWith('/_larder/') && request.pathname !== '/_larder/clock';
  await page.route(refused, (route) =>
    route.continue({
      headers: { ...route.request().headers(), authorization: 'Bearer not-the-admin-token' },
    }),
  );
  try {
    // Not view(): the header is gone with the first refused read, maybe before its link shows as current.
    await page.click('header nav a:has-text("Controls")');
    await page.waitForSelector('.problem:has-text("That admin token was refused")');
    assert.equal(await page.locator('.problem:has-text("401")').count(), 0);
  } finally {
    await page.unroute(refused);
  }
  await page.fill('input[aria-label="Admin token"]', demo.adminToken);
  await page.click('button:has-text("Open")');
  await page.waitForSelector('.card h2:has-text("Fault rules")');
});

test('at phone width every view fits the screen: nothing scrolls sideways but the tables inside their cards', async () => {
  await page.setViewportSize(PHONE);
  for (const [name, shot] of [
    ['Locations', 'console-phone-locations'],
    ['Purchase orders', undefined],
    ['Inventory', 'console-phone-inventory'],
    ['Traffic', undefined],
    ['Controls', undefined],
  ] as const) {
    await view(name);
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `${name} is ${overflow}px wider than the phone`);
    if (shot !== undefined) await browser.screenshot(shot);
  }
  await page.setViewportSize(LAPTOP);
});

test('no request left the server’s origin, and the console only asked for its files and the admin API', () => {
  assert.deepEqual(browser.offOrigin(), []);
  const paths = browser.requests.map((request) => new URL(request).pathname);
  assert.deepEqual(
    paths.filter((path) => !path.startsWith('/console') && !path.startsWith('/_larder/')),
    [],
  );
});

const adminGet = (path: string) =>
  fetch(`${url}/_larder${path}`, { headers: { authorization: `Bearer ${demo.adminToken}` } });

const adminSend = (method: string, path: string, body?: unknown) =>
  fetch(`${url}/_larder${path}`, {
    method,
    headers: { authorization: `Bearer ${demo.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
