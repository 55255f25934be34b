import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { systemClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { logInOver, startTestServer, type TestServer } from '../helpers/test-server.js';

/** fetch sends each character of a header as one byte: these are the UTF-8 bytes curl sends for `text`. */
const asCurlSends = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/**
 * A location header sent as UTF-8 (curl) reaches Node as its Latin-1 reading (`CafÃ©`). The journal shows it as
 * written; so must the access log, the 404 naming it and a fault rule matching it, over a real socket.
 */
describe('a location header beyond ASCII reads as its sender wrote it, wherever it is shown or matched', () => {
  let running: TestServer;
  let token: string;
  const lines: Record<string, unknown>[] = [];
  const search = (location: string, requestId: string) =>
    fetch(`${running.server.url}/v1/purchaseOrders/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'platform-restaurant-external-id': location,
        'x-request-id': requestId,
      },
      body: '{}',
    });
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${running.server.url}/_larder${path}`, {
      method,
      headers: {
        authorization: `Bearer ${running.demo?.adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  before(async () => {
    const logger = createLogger({
      sink: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    running = await startTestServer({ demo: true, logger });
    // Granted every location, so an unknown one is a 404 naming it rather than a 403.
    const client = await createClientCredentials(
      running.store,
      { name: 'everywhere', allLocations: true },
      systemClock,
    );
    token = await logInOver(running.server.url, client.clientId, client.clientSecret);
  });
  after(async () => {
    await running.stop();
  });

  test('the 404 for an unknown location and the access log name it as sent: UTF-8 as UTF-8, else Latin-1', async () => {
    const sent = [
      [asCurlSends('Café 東京'), 'utf8-1', 'Café 東京'],
      ['Café', 'latin1-1', 'Café'],
    ] as const;
    const seen = [];
    for (const [location, requestId] of sent) {
      const response = await search(location, requestId);
      const body = (await response.json()) as { code: number; message: string };
      const line = lines.find((logged) => logged['requestId'] === requestId);
      seen.push({
        status: response.status,
        code: body.code,
        message: body.message,
        logged: line?.['location'],
      });
    }
    const journal = (await (await admin('GET', '/requests?operation=searchPurchaseOrders')).json()) as {
      requests: { location?: string }[];
    };
    assert.deepEqual(
      seen,
      sent.map(([, , shown]) => ({
        status: 404,
        code: 40403,
        message: `Location ${shown} is unknown.`,
        logged: shown,
      })),
    );
    assert.deepEqual(
      journal.requests.map((entry) => entry.location),
      sent.map(([, , shown]) => shown),
    );
  });

  test('the 404 repeats an unknown location cut to 100 characters, as the 403 does', async () => {
    const response = await search('x'.repeat(8_000), 'long-1');
    assert.equal(response.status, 404);
    assert.equal(
      ((await response.json()) as { message: string }).message,
      `Location ${'x'.repeat(100)}… is unknown.`,
    );
  });

  test('a fault rule on a location matches it as sent, by curl (UTF-8) or fetch (Latin-1)', async () => {
    const rule = { match: { location: 'Café' }, effect: { type: 'status', status: 503 } };
    assert.equal((await admin('PUT', '/faults', { rules: [rule] })).status, 200);
    try {
      const statuses = [];
      for (const location of [asCurlSends('Café'), 'Café', asCurlSends('Cafè')])
        statuses.push((await search(location, 'faulted')).status);
      assert.deepEqual(statuses, [503, 503, 404]);
    } finally {
      await admin('DELETE', '/faults');
    }
  });
});
