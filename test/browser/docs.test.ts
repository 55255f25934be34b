import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApiDocument } from '../../src/server/openapi.js';
import { type BrowserSession, openBrowser, PHONE } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** /docs in a real browser, against a demo database: every operation listed, try-it authorizes and searches. */

let running: TestServer;
let browser: BrowserSession;

before(async () => {
  running = await startTestServer({ demo: true });
  browser = await openBrowser(running.server.url);
});
after(async () => {
  await browser?.close();
  await running?.stop();
});

test('GET / in a browser lands on /docs, which lists every operation of the document', async () => {
  const { page } = browser;
  await page.goto(`${running.server.url}/`);
  assert.equal(new URL(page.url()).pathname, '/docs');
  await page.locator('.opblock').first().waitFor();
  const expected = Object.values(openApiDocument(running.server.publicUrl).paths)
    .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
    .sort();
  const shown = (await page.locator('.opblock .opblock-summary-operation-id').allTextContents())
    .map((id) => id.trim())
    .sort();
  assert.deepEqual(shown, expected);
  await page
    .locator('#operations-tag-authentication')
    .evaluate((tag) => tag.scrollIntoView({ block: 'start' }));
  await browser.screenshot('docs');
});

test('opening one operation resolves the whole document once, so every other part opens already resolved', async () => {
  const { page } = browser;
  const resolved = (path: string[]) =>
    page.evaluate(
      (at) =>
        (
          globalThis as unknown as {
            ui: { specSelectors: { specResolvedSubtree(path: string[]): unknown } };
          }
        ).ui.specSelectors.specResolvedSubtree(at) !== undefined,
      path,
    );
  const neverOpened = ['paths', '/_larder/faults', 'post'];
  const operation = page.locator('#operations-retail-getPurchaseOrderById');
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.execute').waitFor();
  assert.equal(await resolved(neverOpened), true, 'an operation never opened is resolved too');
  assert.equal(await resolved(['components', 'schemas', 'ErrorMessage']), true, 'and every schema');
  await operation.locator('.opblock-summary').click();
});

/** Opens an operation, presses Execute with what the page shows, and checks the status of the answer. */
const executeAsShown = async (id: string, status: number) => {
  const operation = browser.page.locator(`#operations-${id}`);
  await operation.locator('.opblock-summary').click();
  const execute = operation.locator('button.execute');
  await execute.waitFor();
  await execute.click();
  const response = operation.locator('.live-responses-table .response');
  await response.first().waitFor();
  assert.equal(
    (await response.locator('.response-col_status').first().textContent())?.trim(),
    String(status),
  );
  return operation;
};

test('try-it: authorize with the prefilled demo client through the token endpoint, then a search returns data', async () => {
  const { page } = browser;
  await page.locator('.auth-wrapper .btn.authorize').click();
  const dialog = page.locator('.modal-ux');
  const oauth = dialog.locator('.auth-container', { hasText: 'clientCredentials' });
  assert.equal(await oauth.locator('input#client_id_clientCredentials').inputValue(), running.demo!.clientId);
  await oauth.locator('button.authorize').click();
  await oauth.locator('button', { hasText: 'Logout' }).waitFor();
  await dialog.locator('button.close-modal').click();

  const operation = await executeAsShown('retail-searchPurchaseOrders', 200);
  const body = await operation.locator('.live-responses-table .microlight').first().textContent();
  const page1 = JSON.parse(body ?? '') as { data: { id: string }[]; nextPageToken: string };
  assert.ok(page1.data.length > 0, 'the search returned records');
  assert.notEqual(page1.nextPageToken, '');
  await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
  await browser.screenshot('docs-try-it');
  // Closed: Swagger UI draws an open operation's answer again on every change to the page, and this one is a
  // page of 100 orders.
  await operation.locator('.opblock-summary').click();
});

test('try-it: on a demo database the login body is the demo client’s, so Execute as it stands logs in', async () => {
  await executeAsShown('authentication-authenticationLoginPost', 200);
});

test('try-it: the token endpoint’s form as it stands gets a token, with every scope granted (no placeholder "string")', async () => {
  const operation = await executeAsShown('authentication-oauthToken', 200);
  const body = await operation.locator('.live-responses-table .microlight').first().textContent();
  assert.equal((JSON.parse(body ?? '') as { scope: string }).scope, 'retail.inventory:read retail:read');
});

test('try-it: the sandbox bodies the page shows (a fault rule, the rule list, a new client) are accepted as they stand', async () => {
  const { page } = browser;
  await page.locator('.auth-wrapper .btn.authorize').click();
  const dialog = page.locator('.modal-ux');
  const admin = dialog.locator('.auth-container', { has: page.locator('h4', { hasText: /^admin\b/ }) });
  await admin.locator('input').fill(running.demo!.adminToken);
  await admin.locator('button.authorize').click();
  await admin.locator('button', { hasText: 'Logout' }).waitFor();
  await dialog.locator('button.close-modal').click();
  try {
    await executeAsShown('sandbox-addFault', 201);
    await executeAsShown('sandbox-setFaults', 200);
    await executeAsShown('sandbox-createClient', 201);
  } finally {
    await fetch(`${running.server.url}/_larder/faults`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${running.demo!.adminToken}` },
    });
  }
});

test('the page reads on a phone width', async () => {
  const phone = await browser.context.newPage();
  await phone.setViewportSize(PHONE);
  await phone.goto(`${running.server.url}/docs`);
  await phone.locator('.opblock').first().waitFor();
  // The error-code table of the description scrolled the whole page sideways (481 px at 400).
  assert.equal(await phone.evaluate('document.documentElement.scrollWidth - window.innerWidth'), 0);
  await browser.screenshot('docs-phone', phone);
  // An operation opened, with its parameters, responses table and an answer, scrolls inside itself (every one
  // pushed the page 8 to 23 px sideways at this width).
  for (const id of ['retail-searchPurchaseOrders', 'retail-getPurchaseOrderById']) {
    const operation = phone.locator(`#operations-${id}`);
    await operation.locator('.opblock-summary').click();
    await operation.locator('.responses-table').first().waitFor();
    assert.equal(
      await phone.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
      0,
      `${id} opened`,
    );
  }
  await phone.close();
});

test('no request left the server’s origin', () => {
  assert.ok(browser.requests.some((url) => url.endsWith('/openapi.json')));
  assert.ok(browser.requests.some((url) => url.includes('/oauth/token')));
  assert.deepEqual(browser.offOrigin(), []);
});
