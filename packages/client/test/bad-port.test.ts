import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient, createSandbox, LarderTimeoutError, LarderTransportError } from '../src/index.js';

/**
 * fetch refuses a few ports outright (the Fetch standard's "bad ports", 1 and 6000 among them) before it connects:
 * its error says only "fetch failed", its cause "bad port". Trying again cannot mend that, and the person reading
 * the error must learn it is their URL's port, not an outage.
 */
const refusal = (url: string) =>
  new RegExp(
    `^POST ${url}/authentication/v1/authentication/login: port ${new URL(url).port} is one fetch refuses to connect to ` +
      '\\(a "bad port" of the Fetch standard, blocked by browsers too; nothing was sent\\): serve it on another port$',
  );

test('a base URL on a port fetch refuses is said as that, naming the URL and the port, at once and never retried', async () => {
  for (const baseUrl of ['http://127.0.0.1:1', 'http://127.0.0.1:6000']) {
    let slept = 0;
    const client = createClient({
      baseUrl,
      clientId: 'x',
      clientSecret: 'y',
      sleep: async () => {
        slept++;
      },
    });
    const error = await client.purchaseOrders.get('x', { location: 'l' }).catch((e: unknown) => e);
    assert.ok(error instanceof LarderTransportError, String(error));
    assert.ok(!(error instanceof LarderTimeoutError));
    assert.match(error.message, refusal(baseUrl));
    // fetch's own error stays as the cause, for whoever wants it.
    assert.equal(((error.cause as Error).cause as Error).message, 'bad port');
    assert.equal(slept, 0, 'no backoff: another attempt would be refused alike');
  }
});

test('the sandbox says a refused port alike', async () => {
  const sandbox = createSandbox({ baseUrl: 'http://127.0.0.1:6000', adminToken: 'a'.repeat(20) });
  const error = await sandbox.clock.get().catch((e: unknown) => e);
  assert.ok(error instanceof LarderTransportError);
  assert.equal(
    error.message,
    'GET http://127.0.0.1:6000/_larder/clock: port 6000 is one fetch refuses to connect to (a "bad port" of the Fetch standard, blocked by browsers too; nothing was sent): serve it on another port',
  );
});
