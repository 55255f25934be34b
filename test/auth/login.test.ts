import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { revokeClient } from '../../src/auth/clients.js';
import type { AuthenticationResponse } from '../../src/auth/schemas.js';
import {
  type AuthHarness,
  createAuthHarness,
  type ErrorBody,
  ISSUER,
  LOGIN,
  readJson,
  TTL,
} from './harness.js';

describe('POST /authentication/v1/authentication/login', () => {
  let h: AuthHarness;
  before(async () => {
    h = await createAuthHarness();
  });
  after(() => h.dispose());

  it('answers SUCCESS with a Bearer JWT, null scope/idToken/refreshToken and no-store', async () => {
    const client = await h.createClient();
    const res = await h.login(client.clientId, client.clientSecret);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await readJson<AuthenticationResponse>(res);
    assert.deepEqual(Object.keys(body).sort(), ['status', 'token']);
    assert.equal(body.status, 'SUCCESS');
    const { accessToken, ...rest } = body.token;
    assert.deepEqual(rest, {
      tokenType: 'Bearer',
      scope: null,
      expiresIn: TTL,
      idToken: null,
      refreshToken: null,
    });
    assert.deepEqual(decodeProtectedHeader(accessToken).typ, 'at+jwt');
    const claims = decodeJwt(accessToken);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, client.clientId);
    assert.equal(claims['client_id'], client.clientId);
    assert.equal(claims['scope'], 'retail.inventory:read');
    assert.equal((claims.exp as number) - (claims.iat as number), TTL);
  });

  it('returns the same token with its remaining expiresIn while more than 60 s are left, then a new one', async () => {
    const client = await h.createClient();
    h.clock.advance(300); // a sub-second clock must not shave a second off a fresh token
    const first = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token;
    assert.equal(first.expiresIn, TTL);
    h.clock.advance(1000 * (TTL - 61) - 300);
    const second = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token;
    assert.equal(second.accessToken, first.accessToken);
    assert.equal(second.expiresIn, 61);
    h.clock.advance(1000);
    const third = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token;
    assert.notEqual(third.accessToken, first.accessToken);
    assert.equal(third.expiresIn, TTL);
  });

  it('gives logins that arrive together one token, as it would a token already current', async () => {
    const client = await h.createClient();
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () =>
        readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)),
      ),
    );
    assert.equal(new Set(answers.map((answer) => answer.token.accessToken)).size, 1);
    assert.ok(answers.every((answer) => answer.token.expiresIn >= TTL - 1));
  });

  it('issues a new token when the client scopes changed since the current one', async () => {
    const client = await h.createClient();
    const first = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token;
    await h.store.auth.updateClient(client.clientId, { scopes: ['retail:read'] });
    const second = (await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret)))
      .token;
    assert.notEqual(second.accessToken, first.accessToken);
    assert.equal(decodeJwt(second.accessToken)['scope'], 'retail:read');
  });

  it('answers an identical 401 ErrorMessage for unknown client, wrong secret and revoked client', async () => {
    const client = await h.createClient();
    const revoked = await h.createClient();
    await revokeClient(h.store, revoked.clientId, h.clock);
    const answers = await Promise.all(
      [
        [crypto.randomUUID(), client.clientSecret],
        [client.clientId, `${client.clientSecret}x`],
        [revoked.clientId, revoked.clientSecret],
      ].map(async ([id, secret], i) => {
        const res = await h.login(id as string, secret as string, `10.1.0.${i}`);
        const body = await readJson<ErrorBody>(res);
        delete body.requestId;
        return { status: res.status, body };
      }),
    );
    assert.equal(answers[0]?.status, 401);
    assert.equal(answers[0]?.body.code, 40102);
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
  });

  it('answers 400 naming userAccessType when it is not PLATFORM_MACHINE_CLIENT', async () => {
    const client = await h.createClient();
    const res = await h.app.request(LOGIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        userAccessType: 'PLATFORM_USER',
      }),
    });
    assert.equal(res.status, 400);
    const body = await readJson<ErrorBody>(res);
    assert.equal(body.fieldName, 'userAccessType');
    assert.match(body.message, /PLATFORM_MACHINE_CLIENT/);
  });

  it('answers 400 naming a missing or unknown field', async () => {
    const missing = await h.app.request(LOGIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'a', userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
    });
    assert.equal(missing.status, 400);
    assert.equal((await readJson<ErrorBody>(missing)).fieldName, 'clientSecret');
    const extra = await h.app.request(LOGIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: 'a',
        clientSecret: 'b',
        userAccessType: 'PLATFORM_MACHINE_CLIENT',
        x: 1,
      }),
    });
    assert.equal(extra.status, 400);
    assert.equal((await readJson<ErrorBody>(extra)).fieldName, 'x');
  });

  it('answers 400 for a missing body without the search hint (there is nothing to search here)', async () => {
    for (const body of [undefined, ' ']) {
      const res = await h.app.request(LOGIN, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      });
      assert.equal(res.status, 400);
      const error = await readJson<ErrorBody>(res);
      assert.equal(error.code, 40002);
      assert.equal(error.message, 'A JSON object body is required.');
    }
  });

  it('throttles failed logins per client id and address with 429 and Retry-After', async () => {
    const client = await h.createClient();
    for (let i = 0; i < 10; i++) {
      assert.equal((await h.login(client.clientId, 'wrong', '10.2.0.1')).status, 401);
      h.clock.advance(1000);
    }
    const limited = await h.login(client.clientId, client.clientSecret, '10.2.0.1');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '50');
    const body = await readJson<ErrorBody>(limited);
    assert.equal(body.code, 42901);
    assert.equal(body.canRetry, 'true');
    h.clock.advance(50_000);
    assert.equal((await h.login(client.clientId, client.clientSecret, '10.2.0.1')).status, 200);
  });

  it("never refuses correct credentials because of someone else's failures", async () => {
    const victim = await h.createClient();
    const other = await h.createClient();
    // Someone else hammers the victim's client id from many addresses...
    for (let i = 0; i < 20; i++) await h.login(victim.clientId, 'wrong', `10.3.0.${i}`);
    // ...and other client ids from one address.
    for (let i = 0; i < 20; i++) await h.login(crypto.randomUUID(), 'wrong', '10.3.1.1');
    assert.equal((await h.login(victim.clientId, victim.clientSecret, '10.3.9.9')).status, 200);
    assert.equal((await h.login(other.clientId, other.clientSecret, '10.3.1.1')).status, 200);
  });

  it('does not count successful logins against the limits', async () => {
    const client = await h.createClient();
    for (let i = 0; i < 12; i++) {
      assert.equal((await h.login(client.clientId, client.clientSecret, '10.4.0.1')).status, 200);
    }
    assert.equal((await h.login(client.clientId, 'wrong', '10.4.0.1')).status, 401);
  });
});
