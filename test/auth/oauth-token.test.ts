import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { revokeClient } from '../../src/auth/clients.js';
import type { AuthenticationResponse } from '../../src/auth/schemas.js';
import { createApp } from '../../src/server/app.js';
import { StoreError } from '../../src/shared/errors.js';
import { silentLogger } from '../../src/shared/logger.js';
import {
  type AuthHarness,
  basic,
  createAuthHarness,
  type ErrorBody,
  ISSUER,
  type OAuthErrorBody,
  readJson,
  TOKEN,
  type TokenBody,
  TTL,
} from './harness.js';

describe('POST /authentication/v1/authentication/customer/oauth/token', () => {
  let h: AuthHarness;
  before(async () => {
    h = await createAuthHarness();
  });
  after(() => h.dispose());

  const assertError = async (res: Response, status: number, error: string) => {
    assert.equal(res.status, status);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await readJson<OAuthErrorBody & { requestId?: string }>(res);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'requestId']);
    assert.equal(body.error, error);
    assert.equal(body.requestId, res.headers.get('x-request-id'));
    return res;
  };

  it('grants a token to client_secret_basic with no-store', async () => {
    const client = await h.createClient({ scopes: ['retail.inventory:read', 'retail:read'] });
    h.clock.advance(700); // expires_in stays the full lifetime between whole seconds
    const res = await h.token(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await readJson<TokenBody>(res);
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, TTL);
    assert.equal(body.scope, 'retail.inventory:read retail:read');
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims['client_id'], client.clientId);
    assert.equal(claims['scope'], body.scope);
    assert.equal(decodeProtectedHeader(body.access_token).typ, 'at+jwt');
  });

  it('grants a token to client_secret_post, fresh on every grant', async () => {
    const client = await h.createClient();
    const form = {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    };
    const first = await readJson<TokenBody>(h.token(form));
    const second = await readJson<TokenBody>(h.token(form));
    assert.equal(typeof first.access_token, 'string');
    assert.notEqual(second.access_token, first.access_token);
  });

  it('issues a requested subset of the client scopes', async () => {
    const client = await h.createClient({ scopes: ['retail.inventory:read', 'retail:read'] });
    const res = await h.token(
      { grant_type: 'client_credentials', scope: 'retail:read' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    const body = await readJson<TokenBody>(res);
    assert.equal(body.scope, 'retail:read');
    assert.equal(decodeJwt(body.access_token)['scope'], 'retail:read');
  });

  it('answers invalid_scope 400 for a scope the client lacks or an unknown one', async () => {
    const client = await h.createClient();
    const auth = { authorization: basic(client.clientId, client.clientSecret) };
    await assertError(
      await h.token({ grant_type: 'client_credentials', scope: 'retail:read' }, auth),
      400,
      'invalid_scope',
    );
    await assertError(
      await h.token({ grant_type: 'client_credentials', scope: 'admin' }, auth),
      400,
      'invalid_scope',
    );
  });

  it('answers a compressed form body with invalid_request 400 naming the coding', async () => {
    const client = await h.createClient();
    const res = await h.token(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret), 'content-encoding': 'gzip' },
    );
    assert.equal(res.headers.get('accept-encoding'), 'identity');
    const description = (await res.clone().json()) as OAuthErrorBody;
    await assertError(res, 400, 'invalid_request');
    assert.match(description.error_description ?? '', /^Content-Encoding gzip is not supported/);
  });

  it('echoes a refused scope only within RFC 6749 error_description characters, and cut short', async () => {
    const client = await h.createClient();
    const auth = { authorization: basic(client.clientId, client.clientSecret) };
    const description = async (scope: string) => {
      const res = await h.token({ grant_type: 'client_credentials', scope }, auth);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_scope');
      assert.match(body.error_description, /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
      return body.error_description;
    };
    const long = await description(`retail.inventory:read ${'x'.repeat(60_000)}`);
    assert.ok(long.length < 300, `${long.length} characters`);
    assert.match(long, /^Not granted to this client: x{200}\.\.\. \(60000 characters\)$/);
    for (const scope of ['caf\u00e9', 'a"b', 'a\\b', 'a\u0001b'])
      assert.match(await description(scope), /^scope must be space-separated tokens of visible ASCII/);
  });

  it('answers invalid_client 401 with WWW-Authenticate: Basic when Basic authentication fails', async () => {
    const client = await h.createClient();
    const res = await h.token(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, 'wrong') },
      '10.9.0.1',
    );
    await assertError(res, 401, 'invalid_client');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  });

  it('answers invalid_client 401 without a Basic challenge when form authentication fails', async () => {
    const client = await h.createClient();
    await revokeClient(h.store, client.clientId, h.clock);
    const res = await h.token(
      { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
      {},
      '10.9.0.2',
    );
    await assertError(res, 401, 'invalid_client');
    assert.equal(res.headers.get('www-authenticate'), null);
  });

  it('answers invalid_client 401 when no client authentication is sent', async () => {
    await assertError(await h.token({ grant_type: 'client_credentials' }), 401, 'invalid_client');
  });

  it('answers unsupported_grant_type 400 for another grant', async () => {
    const client = await h.createClient();
    const res = await h.token(
      { grant_type: 'password' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    await assertError(res, 400, 'unsupported_grant_type');
  });

  it('answers invalid_request 400 for a missing grant_type, a repeated parameter, two auth methods or JSON', async () => {
    const client = await h.createClient();
    const auth = { authorization: basic(client.clientId, client.clientSecret) };
    await assertError(await h.token({}, auth), 400, 'invalid_request');
    const repeated = await h.app.request(TOKEN, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
      body: 'grant_type=client_credentials&scope=retail.inventory:read&scope=retail:read',
    });
    await assertError(repeated, 400, 'invalid_request');
    await assertError(
      await h.token({ grant_type: 'client_credentials', client_secret: client.clientSecret }, auth),
      400,
      'invalid_request',
    );
    const json = await h.app.request(TOKEN, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    await assertError(json, 400, 'invalid_request');
  });

  it('answers invalid_request 413 for a form body over 64 KiB, declared or not', async () => {
    const client = await h.createClient();
    const auth = { authorization: basic(client.clientId, client.clientSecret) };
    const padding = 'x'.repeat(70_000);
    await assertError(
      await h.token({ grant_type: 'client_credentials', padding }, auth),
      413,
      'invalid_request',
    );
    // No Content-Length: the limit holds on the bytes as they are read.
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`grant_type=client_credentials&padding=${padding}`));
        controller.close();
      },
    });
    const res = await h.app.request(TOKEN, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
      body: streamed,
      duplex: 'half',
    } as RequestInit);
    await assertError(res, 413, 'invalid_request');
  });

  it('answers every other failure in that shape too: 405 for another method, 503 with the database down', async () => {
    const wrongMethod = await assertError(
      await h.app.request(TOKEN, { method: 'GET' }),
      405,
      'invalid_request',
    );
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    const down = await createApp({
      store: {
        ...h.store,
        auth: {
          ...h.store.auth,
          getClient: () => Promise.reject(new StoreError('STORE_UNAVAILABLE', 'database down')),
        },
      },
      clock: h.clock,
      config: { publicUrl: ISSUER, tokenTtlSeconds: TTL, trustProxy: false },
      logger: silentLogger,
    });
    const client = await h.createClient();
    const refused = await down.app.request(TOKEN, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }).toString(),
    });
    await assertError(refused, 503, 'temporarily_unavailable');
  });

  it('shares the failed-login throttle: 429 with Retry-After after 10 failures', async () => {
    const client = await h.createClient();
    const form = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'wrong' };
    for (let i = 0; i < 10; i++)
      await assertError(await h.token(form, {}, '10.8.0.1'), 401, 'invalid_client');
    const res = await h.token({ ...form, client_secret: client.clientSecret }, {}, '10.8.0.1');
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '60');
    assert.equal((await h.login(client.clientId, client.clientSecret, '10.8.0.1')).status, 429);
    assert.equal((await h.login(client.clientId, client.clientSecret, '10.8.1.1')).status, 200);
  });
});

describe('authorization server metadata and JWKS', () => {
  let h: AuthHarness;
  before(async () => {
    h = await createAuthHarness();
  });
  after(() => h.dispose());

  it('publishes RFC 8414 metadata derived from the issuer', async () => {
    const res = await h.app.request('/.well-known/oauth-authorization-server');
    assert.equal(res.status, 200);
    assert.deepEqual(await readJson<unknown>(res), {
      issuer: ISSUER,
      token_endpoint: `${ISSUER}${TOKEN}`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['retail.inventory:read', 'retail:read'],
      response_types_supported: [],
    });
  });

  it('publishes the public signing key, and nothing private, at jwks_uri', async () => {
    const { keys } = await readJson<JSONWebKeySet>(h.app.request('/.well-known/jwks.json'));
    assert.equal(keys.length, 1);
    const [key] = keys;
    assert.ok(key);
    assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(key.alg, 'ES256');
    const client = await h.createClient();
    const token = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token.accessToken;
    assert.equal(decodeProtectedHeader(token).kid, key.kid);
  });
});

describe('authorization server metadata for an issuer with a path', () => {
  const issuer = 'https://api.example.com/team/larder';
  let h: AuthHarness;
  let root: AuthHarness;
  before(async () => {
    h = await createAuthHarness(issuer);
    root = await createAuthHarness();
  });
  after(async () => {
    await h.dispose();
    await root.dispose();
  });

  const assertNotFound = async (res: Response) => {
    assert.equal(res.status, 404);
    const body = await readJson<ErrorBody>(res);
    assert.equal(body.code, 40402);
    assert.equal(typeof body.requestId, 'string');
  };

  it('serves it at the RFC 8414 location, the well-known segment between host and path', async () => {
    const res = await h.app.request('/.well-known/oauth-authorization-server/team/larder');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    const metadata = await readJson<Record<string, unknown>>(res);
    assert.equal(metadata['issuer'], issuer);
    assert.equal(metadata['token_endpoint'], `${issuer}${TOKEN}`);
    assert.equal(metadata['jwks_uri'], `${issuer}/.well-known/jwks.json`);
  });

  it('still serves it at the root, where a prefix-stripping proxy sends <issuer>/.well-known/…', async () => {
    const suffixed = await readJson<unknown>(
      h.app.request('/.well-known/oauth-authorization-server/team/larder'),
    );
    assert.deepEqual(
      await readJson<unknown>(h.app.request('/.well-known/oauth-authorization-server')),
      suffixed,
    );
    const { keys } = await readJson<JSONWebKeySet>(h.app.request('/.well-known/jwks.json'));
    assert.equal(keys.length, 1);
  });

  it('answers other suffixes, and any suffix for a root issuer, with a 404 ErrorMessage', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server/team',
      '/.well-known/oauth-authorization-server/team/larder/x',
      '/.well-known/oauth-authorization-server/other',
      '/.well-known/oauth-authorization-server/team/larder/',
    ])
      await assertNotFound(await h.app.request(path));
    await assertNotFound(await root.app.request('/.well-known/oauth-authorization-server/team/larder'));
  });

  it('takes the path literally, route pattern syntax included', async () => {
    const tenant = await createAuthHarness('https://api.example.com/:tenant');
    try {
      assert.equal((await tenant.app.request('/.well-known/oauth-authorization-server/:tenant')).status, 200);
      await assertNotFound(await tenant.app.request('/.well-known/oauth-authorization-server/other'));
    } finally {
      await tenant.dispose();
    }
  });
});
