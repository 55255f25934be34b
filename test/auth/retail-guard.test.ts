import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { POLL_INTERVAL_MS } from '../../src/auth/auth-service.js';
import { revokeClient, updateClientGrants } from '../../src/auth/clients.js';
import type { AuthenticationResponse } from '../../src/auth/schemas.js';
import { rotateSigningKey } from '../../src/auth/signing-keys.js';
import { tokenFingerprint } from '../../src/http/request-facts.js';
import { LarderError } from '../../src/shared/errors.js';
import {
  type AuthHarness,
  basic,
  createAuthHarness,
  ISSUER,
  LOGIN,
  loginRequest,
  readJson,
  type TokenBody,
  TTL,
} from './harness.js';

const AUDIENCE = `${ISSUER}/v1`;
const LOCATION = 'loc-1';

/** Runs the guard and returns the LarderError it threw (sync or async). */
const rejection = async (run: () => unknown): Promise<LarderError> => {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof LarderError, `expected a LarderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the guard to reject');
};

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('retail guard (authorizeRetail)', () => {
  let h: AuthHarness;
  let stop: () => void;
  before(async () => {
    h = await createAuthHarness();
    stop = h.auth.start();
  });
  after(async () => {
    stop();
    await h.dispose();
  });

  const loginToken = async (
    scopes?: string[],
    grant: { locations?: string[]; allLocations?: boolean } = {},
  ) => {
    const client = await h.createClient({ ...(scopes === undefined ? {} : { scopes }), ...grant });
    const body = await readJson<AuthenticationResponse>(h.login(client.clientId, client.clientSecret));
    return { client, bearer: `Bearer ${body.token.accessToken}`, token: body.token.accessToken as string };
  };

  const activePrivateKey = async () => {
    const [key] = (await h.store.auth.listSigningKeys()).filter((k) => k.retiredAt === null);
    assert.ok(key);
    return { kid: key.kid, key: await importJWK(JSON.parse(key.privateJwk) as JWK, 'ES256') };
  };

  /** Signs like the issuer does, with one thing changed, using the real active private key unless given another. */
  const signed = async (
    clientId: string,
    change: {
      header?: Record<string, unknown>;
      claims?: JWTPayload;
      key?: Parameters<SignJWT['sign']>[0];
    } = {},
  ): Promise<string> => {
    const active = await activePrivateKey();
    const kid = active.kid;
    const key = change.key ?? active.key;
    const now = Math.floor(h.clock.now() / 1000);
    const jwt = new SignJWT({
      iss: ISSUER,
      sub: clientId,
      client_id: clientId,
      aud: AUDIENCE,
      iat: now,
      exp: now + TTL,
      jti: crypto.randomUUID(),
      scope: 'retail.inventory:read',
      ...change.claims,
    }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...change.header });
    return `Bearer ${await jwt.sign(key)}`;
  };

  const assertInvalidToken = async (authorization: string, description: RegExp) => {
    const error = await rejection(() => h.auth.guard(authorization, LOCATION));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'ERR_UNAUTHENTICATED');
    const challenge = error.headers['WWW-Authenticate'] ?? '';
    assert.match(challenge, /^Bearer error="invalid_token", error_description="[^"]+"$/);
    assert.match(challenge, description);
  };

  it('admits a valid token for a granted location, from the cache once verified', async () => {
    const { client, bearer } = await loginToken();
    assert.deepEqual(await h.auth.guard(bearer, LOCATION), {
      clientId: client.clientId,
      scopes: ['retail.inventory:read'],
      tokenFingerprint: tokenFingerprint(bearer.replace(/^Bearer /, '')),
    });
    // The guard answers one way, a promise, for a cached token too.
    const again = h.auth.guard(bearer, LOCATION);
    assert.ok(again instanceof Promise);
    assert.equal((await again).clientId, client.clientId);
  });

  it('a header ending like a cached token is checked whole: another payload with that signature is refused', async () => {
    const { client, bearer } = await loginToken();
    assert.equal((await h.auth.guard(bearer, LOCATION)).clientId, client.clientId);
    const [head, payload, signature] = bearer.slice('Bearer '.length).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as JWTPayload;
    const forged = `Bearer ${head}.${b64({ ...claims, scope: 'retail:*' })}.${signature}`;
    const error = await rejection(() => h.auth.guard(forged, LOCATION));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'ERR_UNAUTHENTICATED');
    // The same token in another header form is verified on its own and admitted; the first stays cached.
    assert.equal(
      (await h.auth.guard(bearer.replace('Bearer ', 'Bearer  '), LOCATION)).clientId,
      client.clientId,
    );
    assert.equal((await h.auth.guard(bearer, LOCATION)).clientId, client.clientId);
  });

  it('answers 401 with a realm challenge for a missing or non-Bearer Authorization', async () => {
    for (const authorization of [undefined, '', 'Basic abc', 'Bearer', 'Bearer ']) {
      const error = await rejection(() => h.auth.guard(authorization, LOCATION));
      assert.equal(error.status, 401);
      assert.deepEqual(error.headers, { 'WWW-Authenticate': 'Bearer realm="larder", error="invalid_token"' });
    }
  });

  it('rejects garbage and a forged signature as invalid_token', async () => {
    const { client } = await loginToken();
    await assertInvalidToken('Bearer not-a-jwt', /malformed/);
    const forger = await generateKeyPair('ES256');
    const forged = await signed(client.clientId, { key: forger.privateKey });
    await assertInvalidToken(forged, /signature/);
  });

  it('rejects alg none', async () => {
    const { token } = await loginToken();
    const [, payload] = token.split('.');
    const { kid } = await activePrivateKey();
    await assertInvalidToken(
      `Bearer ${b64({ alg: 'none', typ: 'at+jwt', kid })}.${payload}.`,
      /malformed|algorithm/,
    );
  });

  it('rejects HS256 signed with the public key (algorithm confusion)', async () => {
    const { client } = await loginToken();
    const [record] = await h.store.auth.listSigningKeys();
    assert.ok(record);
    const publicKey = await importJWK(JSON.parse(record.publicJwk) as JWK, 'ES256', { extractable: true });
    for (const secret of [
      await exportSPKI(publicKey as Parameters<typeof exportSPKI>[0]),
      record.publicJwk,
    ]) {
      const confused = await signed(client.clientId, {
        header: { alg: 'HS256', kid: record.kid },
        key: new TextEncoder().encode(secret),
      });
      await assertInvalidToken(confused, /algorithm/);
    }
  });

  it('rejects a wrong issuer, audience or typ, and an unknown kid, even when signed with our key', async () => {
    const { client } = await loginToken();
    assert.ok(await h.auth.guard(await signed(client.clientId), LOCATION), 'the control token passes');
    await assertInvalidToken(await signed(client.clientId, { claims: { iss: 'http://evil.test' } }), /iss/);
    await assertInvalidToken(
      await signed(client.clientId, { claims: { aud: 'http://evil.test/v1' } }),
      /aud/,
    );
    await assertInvalidToken(await signed(client.clientId, { header: { typ: 'JWT' } }), /typ/);
    await assertInvalidToken(await signed(client.clientId, { header: { kid: 'other' } }), /unknown key/);
    await assertInvalidToken(
      await signed(client.clientId, { claims: { client_id: 'someone-else' } }),
      /claims/,
    );
  });

  it('rejects an expired token (1 s leeway), also once it was cached', async () => {
    const { bearer } = await loginToken();
    await h.auth.guard(bearer, LOCATION);
    h.clock.advance(TTL * 1000 + 500);
    assert.ok(h.auth.guard(bearer, LOCATION), 'within the leeway');
    h.clock.advance(500);
    await assertInvalidToken(bearer, /expired/);
    const fresh = await loginToken();
    h.clock.advance(TTL * 1000 + 1000);
    await assertInvalidToken(fresh.bearer, /expired/);
  });

  it('rejects a token without a retail read scope with 403 insufficient_scope', async () => {
    const { client } = await loginToken();
    const token = await signed(client.clientId, { claims: { scope: 'openid profile' } });
    const denied = await rejection(() => h.auth.guard(token, LOCATION));
    assert.equal(denied.status, 403);
    assert.equal(denied.code, 'ERR_INSUFFICIENT_SCOPE');
    assert.deepEqual(denied.headers, {
      'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="retail.inventory:read"',
    });
  });

  it('admits retail:read alone', async () => {
    const { client, bearer } = await loginToken(['retail:read']);
    assert.deepEqual(await h.auth.guard(bearer, LOCATION), {
      clientId: client.clientId,
      scopes: ['retail:read'],
      tokenFingerprint: tokenFingerprint(bearer.replace(/^Bearer /, '')),
    });
  });

  it('answers 403 ERR_LOCATION_FORBIDDEN for a location not granted; all-locations clients pass', async () => {
    const { bearer } = await loginToken();
    const error = await rejection(() => h.auth.guard(bearer, 'loc-2'));
    assert.equal(error.status, 403);
    assert.equal(error.code, 'ERR_LOCATION_FORBIDDEN');
    assert.equal(error.message, 'The client is not granted location loc-2.');
    // Ids are case-sensitive; a granted one that differs only in case is named.
    const cased = await rejection(() => h.auth.guard(bearer, LOCATION.toUpperCase()));
    assert.match(cased.message, new RegExp(`case-sensitive: did you mean ${LOCATION}\\?`));
    // A header sent as UTF-8 (curl) arrives as Latin-1 text: the message shows it as the client typed it.
    const utf8 = await rejection(() => h.auth.guard(bearer, Buffer.from('lоc-ü', 'utf8').toString('latin1')));
    assert.equal(utf8.message, 'The client is not granted location lоc-ü.');
    const everywhere = await loginToken(undefined, { allLocations: true });
    assert.ok(await h.auth.guard(everywhere.bearer, 'loc-2'));
  });

  it('checks only the token when the location header is missing', async () => {
    const { bearer } = await loginToken();
    assert.ok(await h.auth.guard(bearer, undefined));
    await assertInvalidToken('Bearer a.b.c', /malformed/);
  });

  it('rejects an issued token within 1 s of its client being revoked (no restart)', async () => {
    const { client, bearer } = await loginToken();
    await h.auth.guard(bearer, LOCATION);
    await revokeClient(h.store, client.clientId, h.clock);
    // What the next poll does, due within POLL_INTERVAL_MS (test/auth/auth-state.test.ts times the poll).
    assert.ok(POLL_INTERVAL_MS < 1000);
    await h.auth.refresh();
    await assertInvalidToken(bearer, /revoked/);
  });

  it('applies grant changes to an issued token within 1 s', async () => {
    const { client, bearer } = await loginToken();
    await h.auth.guard(bearer, LOCATION);
    await updateClientGrants(h.store, client.clientId, { locations: ['loc-2'] });
    await h.auth.refresh();
    const error = await rejection(() => h.auth.guard(bearer, LOCATION));
    assert.equal(error.code, 'ERR_LOCATION_FORBIDDEN');
    assert.ok(await h.auth.guard(bearer, 'loc-2'));
  });

  it('drops a scope removed from the client from tokens already issued', async () => {
    const client = await h.createClient({ scopes: ['retail.inventory:read', 'retail:read'] });
    const res = await h.token(
      { grant_type: 'client_credentials', scope: 'retail:read' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    const bearer = `Bearer ${(await readJson<TokenBody>(res)).access_token}`;
    assert.ok(await h.auth.guard(bearer, LOCATION));
    await updateClientGrants(h.store, client.clientId, { scopes: ['retail.inventory:read'] });
    await h.auth.refresh();
    const error = await rejection(() => h.auth.guard(bearer, LOCATION));
    assert.equal(error.code, 'ERR_INSUFFICIENT_SCOPE');
  });

  it('verifies tokens from another instance after a rotation, and old tokens keep working', async () => {
    const before = await loginToken();
    await rotateSigningKey(h.store, h.clock, TTL);
    const other = await h.instance();
    const client = await h.createClient();
    const res = await other.app.request(LOGIN, loginRequest(client));
    const token = (await readJson<AuthenticationResponse>(res)).token.accessToken;
    // Immediately, before this instance's poll could have seen the rotation.
    assert.ok(await h.auth.guard(`Bearer ${token}`, LOCATION));
    assert.ok(await h.auth.guard(before.bearer, LOCATION));
    const { keys } = await readJson<JSONWebKeySet>(h.app.request('/.well-known/jwks.json'));
    assert.equal(keys.length, 2);
  });
});
