import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { createClientCredentials } from '../../src/auth/clients.js';
import { createApp } from '../../src/server/app.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openTempStore, type TempStore } from './harness.js';

/**
 * A stock OAuth 2.0 client against a real listening server: discovery (RFC 8414), then client credentials. With
 * a path, the server stands in for a reverse proxy that strips it, as Larder expects; the RFC 8414 metadata URL
 * lies outside the path and passes unchanged.
 */
for (const prefix of ['', '/larder'])
  describe(`openid-client against a running server, issuer path "${prefix}"`, () => {
    let temp: TempStore;
    let server: Server;
    let issuer: string;
    let stop: () => void;

    before(async () => {
      temp = await openTempStore();
      await temp.store.locations.upsert({ id: 'loc-1' });
      // The issuer needs the port, which is known only once listening: route to the app after it is built.
      let app: Hono | undefined;
      const listener = getRequestListener((request, env) => (app as Hono).fetch(request, env));
      server = createServer((incoming, outgoing) => {
        if (incoming.url?.startsWith(`${prefix}/`)) incoming.url = incoming.url.slice(prefix.length);
        void listener(incoming, outgoing);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
      const larder = await createApp({
        store: temp.store,
        clock: systemClock,
        config: { publicUrl: issuer, tokenTtlSeconds: 600, trustProxy: false },
        logger: silentLogger,
      });
      stop = larder.auth.start();
      app = larder.app;
    });

    after(async () => {
      stop();
      await new Promise((resolve) => server.close(resolve));
      await temp.dispose();
    });

    const discover = (clientId: string, auth: oidc.ClientAuth) =>
      oidc.discovery(new URL(issuer), clientId, undefined, auth, {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
      });

    for (const [method, auth] of [
      ['client_secret_basic', oidc.ClientSecretBasic],
      ['client_secret_post', oidc.ClientSecretPost],
    ] as const) {
      it(`discovers the server and obtains a token with ${method}`, async () => {
        const client = await createClientCredentials(temp.store, {
          name: 'oidc',
          locations: ['loc-1'],
          scopes: ['retail.inventory:read', 'retail:read'],
        });
        const config = await discover(client.clientId, auth(client.clientSecret));
        assert.equal(config.serverMetadata().issuer, issuer);
        const tokens = await oidc.clientCredentialsGrant(config, { scope: 'retail.inventory:read' });
        assert.equal(tokens.token_type, 'bearer');
        assert.equal(tokens.scope, 'retail.inventory:read');
        assert.ok((tokens.expiresIn() ?? 0) > 590);

        // The token verifies against the published JWKS, as any resource server would check it.
        const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri as string));
        const { payload } = await jwtVerify(tokens.access_token, jwks, {
          issuer,
          typ: 'at+jwt',
          algorithms: ['ES256'],
        });
        assert.equal(payload.sub, client.clientId);

        const res = await fetch(`${issuer}/v1/purchaseOrders/search`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            'content-type': 'application/json',
            'platform-restaurant-external-id': 'loc-1',
          },
          body: '{}',
        });
        assert.equal(res.status, 200);
      });
    }

    it('surfaces invalid_client with the Basic challenge for a wrong secret', async () => {
      const client = await createClientCredentials(temp.store, { name: 'oidc', locations: ['loc-1'] });
      const config = await discover(client.clientId, oidc.ClientSecretBasic('wrong'));
      const error = await oidc.clientCredentialsGrant(config).then(
        () => assert.fail('the grant must be refused'),
        (error: unknown) => error,
      );
      assert.ok(error instanceof oidc.WWWAuthenticateChallengeError);
      assert.equal(error.status, 401);
      assert.equal(error.cause[0]?.scheme, 'basic');
      assert.equal(((await error.response.json()) as { error: string }).error, 'invalid_client');
    });
  });
