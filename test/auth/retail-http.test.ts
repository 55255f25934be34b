import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuthenticationResponse } from '../../src/auth/schemas.js';
import { type AuthHarness, createAuthHarness, type ErrorBody, readJson } from './harness.js';

/** The guard through the real app: the edge handler turns its errors into ErrorMessage + WWW-Authenticate. */
describe('retail operations secured by the auth service', () => {
  let h: AuthHarness;
  let bearer: string;
  before(async () => {
    h = await createAuthHarness();
    const client = await h.createClient({ locations: ['loc-1'] });
    bearer = `Bearer ${(await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret))).token.accessToken}`;
  });
  after(() => h.dispose());

  const search = (headers: Record<string, string>) =>
    h.app.request('/v1/inventoryHistory/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });

  it('serves a granted location to a logged-in client', async () => {
    const res = await search({ authorization: bearer, 'platform-restaurant-external-id': 'loc-1' });
    assert.equal(res.status, 200);
    assert.deepEqual((await readJson<{ data: unknown[] }>(res)).data, []);
  });

  it('answers 401 ErrorMessage with the Bearer challenge without a token', async () => {
    const res = await search({ 'platform-restaurant-external-id': 'loc-1' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="larder", error="invalid_token"');
    const body = await readJson<ErrorBody>(res);
    assert.equal(body.status, '401');
    assert.equal(body.code, 40101);
  });

  it('answers 401 saying the form it wants when the header is not "Bearer <token>"', async () => {
    for (const authorization of [bearer.slice('Bearer '.length), 'Basic YTpi', 'Token abc']) {
      const res = await search({ authorization, 'platform-restaurant-external-id': 'loc-1' });
      assert.equal(res.status, 401);
      // No token was offered; the challenge still says invalid_token, as for every 401 (our decision).
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="larder", error="invalid_token"');
      const body = await readJson<ErrorBody>(res);
      assert.equal(body.code, 40101);
      assert.equal(body.message, 'The Authorization header must be "Bearer " followed by the access token.');
    }
  });

  it('answers 401 with error="invalid_token" for a tampered token', async () => {
    const res = await search({
      authorization: `${bearer.slice(0, -4)}AAAA`,
      'platform-restaurant-external-id': 'loc-1',
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    assert.equal((await readJson<ErrorBody>(res)).code, 40101);
  });

  it('answers 403 for a location not granted, and 400 when the header is missing', async () => {
    const forbidden = await search({ authorization: bearer, 'platform-restaurant-external-id': 'loc-2' });
    assert.equal(forbidden.status, 403);
    assert.equal((await readJson<ErrorBody>(forbidden)).code, 40302);
    const missing = await search({ authorization: bearer });
    assert.equal(missing.status, 400);
  });
});
