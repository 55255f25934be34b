import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { startServe, stop } from '../helpers/cli.js';

/**
 * The console's Traffic view against `larder serve --workers 2`: each worker numbers its own journal, so two
 * requests can share a `seq`; the view tells them apart by their `id`.
 */

const ADMIN = 'console-workers-admin-token-0123';
const REQUESTS = 12;
let dir: string;
let server: Awaited<ReturnType<typeof startServe>>;
let browser: BrowserSession;
let page: Page;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-console-workers-'));
  const sandbox = ['--no-demo', '--port', '0', '--workers', '2', '--admin-token', ADMIN];
  server = await startServe(['--db', join(dir, 'larder.db'), ...sandbox]);
  // Fresh connections each, so both workers answer some (the primary hands connections round-robin).
  for (let n = 0; n < REQUESTS; n++)
    await fetch(`${server.url}/.well-known/jwks.json`, {
      headers: { connection: 'close', 'x-request-id': `worker-request-${n}` },
    });
  browser = await openBrowser(server.url, { path: `/console#token=${encodeURIComponent(ADMIN)}` });
  page = browser.page;
});
after(async () => {
  await browser?.close();
  if (server !== undefined) await stop(server.child);
  await rm(dir, { recursive: true, force: true });
});

test('Traffic under --workers 2: two requests with the same seq are two rows, and each opens alone', async () => {
  const { requests } = (await (
    await fetch(`${server.url}/_larder/requests`, {
      headers: { authorization: `Bearer ${ADMIN}`, connection: 'close' },
    })
  ).json()) as { requests: { seq: number; requestId: string }[] };
  assert.equal(requests.length, REQUESTS);
  const shared = requests.find((entry, i) => requests.some((other, j) => j !== i && other.seq === entry.seq));
  assert.ok(shared !== undefined, 'two workers answered, so some seq repeats');
  const twins = requests.filter((entry) => entry.seq === shared.seq);

  await page.click('header nav a:has-text("Traffic")');
  const rows = page.locator('table.journal tr.entry');
  await rows.nth(REQUESTS - 1).waitFor();
  assert.equal(await rows.count(), REQUESTS);
  // Newest first: the row of listing index i is REQUESTS - 1 - i.
  for (const twin of twins) {
    await rows.nth(REQUESTS - 1 - requests.indexOf(twin)).click();
    const details = page.locator('table.journal tr.entry-detail');
    await details.first().waitFor();
    assert.equal(await details.count(), 1, `only the clicked row opens (seq ${twin.seq})`);
    assert.match((await details.textContent()) ?? '', new RegExp(`"${twin.requestId}"`));
    assert.equal(await page.locator('table.journal tr.entry button[aria-expanded="true"]').count(), 1);
  }
});
