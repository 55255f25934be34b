import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServe, stop } from '../helpers/cli.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';

/**
 * A running `larder serve`, driven the way an integrator's test suite drives it: reset, fixtures, login, sync,
 * two days later an incremental sync that sees exactly what changed, token expiry, the journal and the report.
 */

type Record = { id?: string; inventoryHistoryLogId?: string; modifiedDate: string };

let cwd: string;
let server: Awaited<ReturnType<typeof startServe>>;
let adminToken: string;
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'larder-e2e-'));
  // Pretty: the banner as a person sees it on a terminal, credentials as text.
  server = await startServe(['--port', '0', '--log-format', 'pretty'], { cwd });
  adminToken = /adminToken: +(\S+)/.exec(server.output())?.[1] ?? '';
  assert.ok(adminToken, server.output());
});
after(async () => {
  await stop(server.child);
  await rm(cwd, { recursive: true, force: true });
});

const call = async (
  method: string,
  path: string,
  options: { token?: string; location?: string; body?: unknown; type?: string } = {},
) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.location === undefined ? {} : { 'platform-restaurant-external-id': options.location }),
      ...(options.body === undefined ? {} : { 'content-type': options.type ?? 'application/json' }),
    },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record & { [key: string]: unknown } };
};
const admin = (method: string, path: string, body?: unknown) =>
  call(method, `/_larder${path}`, { token: adminToken, ...(body === undefined ? {} : { body }) });

const login = async (clientId: string, clientSecret: string) => {
  const { body } = await call('POST', '/authentication/v1/authentication/login', {
    body: { clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' },
  });
  return (body as unknown as { token: { accessToken: string } }).token.accessToken;
};

/** Every record of a search, page by page. */
const walk = async (token: string, location: string, kind: string, filter: unknown) => {
  const records: Record[] = [];
  for (let pageToken = ''; ; ) {
    const { status, body } = await call(
      'POST',
      `/v1/${kind}/search?pageSize=500${pageToken === '' ? '' : `&pageToken=${pageToken}`}`,
      { token, location, body: filter },
    );
    assert.equal(status, 200, JSON.stringify(body));
    const page = body as unknown as { data: Record[]; nextPageToken: string };
    records.push(...page.data);
    if (page.nextPageToken === '') return records;
    pageToken = page.nextPageToken;
  }
};

const key = (record: Record) => `${record.id ?? record.inventoryHistoryLogId} ${record.modifiedDate}`;

test('an integrator test suite: reset, fixtures, sync, two days on, incremental sync, expiry, journal, report', async () => {
  // 1. reset
  assert.equal((await admin('POST', '/reset')).status, 200);
  const clock = (await admin('GET', '/clock')).body as unknown as { now: string };
  // 2. fixtures
  const orders = [1, 2].map((n) =>
    purchaseOrderFixture(n, { modifiedAt: Date.parse(clock.now) - 3_600_000 }),
  );
  assert.deepEqual((await admin('POST', '/locations/e2e-fixture/purchaseOrders', orders)).body, {
    imported: 2,
  });
  const ndjson = [1, 2, 3]
    .map((n) => JSON.stringify(inventoryFixture(n, { modifiedAt: Date.parse(clock.now) })))
    .join('\n');
  const entries = await call('POST', '/_larder/locations/e2e-fixture/inventoryHistory', {
    token: adminToken,
    body: ndjson,
    type: 'application/x-ndjson',
  });
  assert.deepEqual(entries.body, { imported: 3 });
  const created = (await admin('POST', '/clients', { name: 'e2e integrator', allLocations: true }))
    .body as unknown as {
    clientId: string;
    clientSecret: string;
  };
  const demoLocation = /^ {2}(loc-\S+) {2}/m.exec(server.output())?.[1];
  assert.ok(demoLocation);

  // 3. log in, 4. sync
  let token = await login(created.clientId, created.clientSecret);
  const syncedAt = (await admin('GET', '/clock')).body as unknown as { now: string };
  const first = await walk(token, demoLocation, 'purchaseOrders', { includeArchived: true });
  assert.ok(first.length > 100, `${first.length} orders`);
  assert.equal((await walk(token, 'e2e-fixture', 'purchaseOrders', {})).length, 2);
  const seen = new Set(first.map(key));

  // 5. two days on
  await admin('POST', '/clock/advance', { seconds: 2 * 86_400 });
  const expired = await call('POST', '/v1/purchaseOrders/search', {
    token,
    location: demoLocation,
    body: {},
  });
  assert.equal(expired.status, 401, 'the day-long token expired on the way');
  token = await login(created.clientId, created.clientSecret);

  // 6. incremental sync from the day of the last one, deduplicated by id and modifiedDate
  const since = syncedAt.now.slice(0, 10);
  const incremental = await walk(token, demoLocation, 'purchaseOrders', {
    includeArchived: true,
    updatedDateRange: { startDate: since },
  });
  const changed = incremental.filter((record) => !seen.has(key(record)));
  // What really changed, seen by another client (a re-walk by the integrator would be a finding).
  const referee = (await admin('POST', '/clients', { name: 'referee', allLocations: true }))
    .body as unknown as {
    clientId: string;
    clientSecret: string;
  };
  const refereeToken = await login(referee.clientId, referee.clientSecret);
  const everything = await walk(refereeToken, demoLocation, 'purchaseOrders', { includeArchived: true });
  const expected = everything.filter((record) => !seen.has(key(record)));
  assert.ok(expected.length > 0, 'two days of trading changed something');
  assert.deepEqual(changed.map(key).sort(), expected.map(key).sort());

  // 7. past token expiry: 401
  await admin('POST', '/clock/advance', { seconds: 86_400 + 60 });
  const late = await call('POST', '/v1/purchaseOrders/search', { token, location: demoLocation, body: {} });
  assert.equal(late.status, 401);

  // 8. the journal
  const journal = (await admin('GET', `/requests?clientId=${created.clientId}`)).body as unknown as {
    requests: { operation: string; status: number }[];
  };
  assert.equal(journal.requests.filter((r) => r.operation === 'authenticationLoginPost').length, 2);
  assert.ok(journal.requests.some((r) => r.status === 401));

  // 9. the report: this client behaved (its full walks each differ, its 401s led to a new login)
  const report = (await admin('GET', `/report?clientId=${created.clientId}`)).body as unknown as {
    findings: unknown[];
  };
  assert.deepEqual(report.findings, []);
});

test('the banner prints a ready console link, the admin token in its fragment, and /console serves the page', async () => {
  const link = /(http:\/\/\S+\/console)#token=(\S+)/.exec(server.output());
  assert.ok(link, server.output());
  assert.equal(decodeURIComponent(link[2]!), adminToken);
  const page = await fetch(link[1]!);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await page.text(), /<div id="app"><\/div>/);
});
