import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { POLL_INTERVAL_MS } from '../../src/auth/auth-service.js';
import { createClientCredentials, revokeClient } from '../../src/auth/clients.js';
import { rotateSigningKey } from '../../src/auth/signing-keys.js';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { systemClock } from '../../src/shared/clock.js';
import { LarderError } from '../../src/shared/errors.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Store } from '../../src/storage/store.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';
import { readJson, TOKEN, type TokenBody } from './harness.js';

const ISSUER = 'http://larder.test';

/** Two server instances and a CLI process, each with its own connection to one database. */
for (const backend of await backends()) {
  describeBackend(`auth across instances (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let cli: Store;
    let a: LarderApp;
    let b: LarderApp;
    const stops: (() => void)[] = [];

    const instance = async (store: Store) => {
      const larder = await createApp({
        store,
        clock: systemClock,
        config: { publicUrl: ISSUER, tokenTtlSeconds: 600, trustProxy: false },
        logger: silentLogger,
      });
      stops.push(larder.auth.start());
      return larder;
    };

    before(async () => {
      db = await backend.create();
      cli = await db.openPeer();
      const peer = await db.openPeer();
      // Both start on an empty database at once: exactly one key ends up active.
      [a, b] = await Promise.all([instance(db.store), instance(peer)]);
    });
    after(async () => {
      for (const stop of stops) stop();
      await db.destroy();
    });

    const grant = async (larder: LarderApp, clientId: string, clientSecret: string) =>
      readJson<TokenBody>(
        larder.app.request(TOKEN, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: clientId,
            client_secret: clientSecret,
          }),
        }),
      );

    const rejected = async (larder: LarderApp, bearer: string) => {
      try {
        await larder.auth.guard(bearer, 'loc-1');
      } catch (error) {
        assert.ok(error instanceof LarderError);
        return error;
      }
      assert.fail('expected a rejection');
    };

    it('starts concurrent first instances with one active key', async () => {
      const keys = await cli.auth.listSigningKeys();
      assert.equal(keys.filter((key) => key.retiredAt === null).length, 1);
    });

    it('lets a client created by the CLI log in at once, and its token work on every instance', async () => {
      const client = await createClientCredentials(cli, { name: 'x', locations: ['loc-1'] });
      const { access_token } = await grant(a, client.clientId, client.clientSecret);
      assert.equal(typeof access_token, 'string');
      assert.equal((await b.auth.guard(`Bearer ${access_token}`, 'loc-1')).clientId, client.clientId);
    });

    it('applies a revocation made by the CLI on every instance within 1 s', async () => {
      const client = await createClientCredentials(cli, { name: 'x', locations: ['loc-1'] });
      const bearer = `Bearer ${(await grant(a, client.clientId, client.clientSecret)).access_token}`;
      await a.auth.guard(bearer, 'loc-1');
      await b.auth.guard(bearer, 'loc-1');
      await revokeClient(cli, client.clientId);
      // What each instance's next poll (due within POLL_INTERVAL_MS) does; test/auth/auth-state.test.ts
      // shows the poll runs on that interval.
      assert.ok(POLL_INTERVAL_MS < 1000);
      await Promise.all([a.auth.refresh(), b.auth.refresh()]);
      assert.equal((await rejected(a, bearer)).status, 401);
      assert.equal((await rejected(b, bearer)).status, 401);
    });

    it('picks up a rotation made by the CLI within 1 s: new kid signs, old tokens verify, JWKS lists both', async () => {
      const client = await createClientCredentials(cli, { name: 'x', locations: ['loc-1'] });
      const old = (await grant(a, client.clientId, client.clientSecret)).access_token;
      const { kid } = await rotateSigningKey(cli, systemClock, 600);
      await Promise.all([a.auth.refresh(), b.auth.refresh()]);
      const fresh = (await grant(a, client.clientId, client.clientSecret)).access_token;
      assert.equal(decodeProtectedHeader(fresh).kid, kid);
      await b.auth.guard(`Bearer ${fresh}`, 'loc-1');
      await b.auth.guard(`Bearer ${old}`, 'loc-1');
      const jwks = await readJson<JSONWebKeySet>(b.app.request('/.well-known/jwks.json'));
      assert.ok(jwks.keys.some((key) => key.kid === kid));
      assert.ok(jwks.keys.some((key) => key.kid === decodeProtectedHeader(old).kid));
    });
  });
}
