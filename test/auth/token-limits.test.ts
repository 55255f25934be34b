import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, importJWK, type JSONWebKeySet, type JWK, SignJWT } from 'jose';
import { RETIREMENT_GRACE_SECONDS } from '../../src/auth/access-tokens.js';
import type { AuthenticationResponse } from '../../src/auth/schemas.js';
import { activeSigningKey, retireSigningKey, rotateSigningKey } from '../../src/auth/signing-keys.js';
import { LarderError } from '../../src/shared/errors.js';
import { type AuthHarness, createAuthHarness, ISSUER, readJson, TTL } from './harness.js';

/** Tokens correctly signed but outside what the issuer ever signs, and keys retired by rotation or for a leak. */

const LOCATION = 'loc-1';

const refusal = async (guarded: Promise<unknown>): Promise<string> => {
  try {
    await guarded;
  } catch (error) {
    assert.ok(error instanceof LarderError, `expected a LarderError, got ${String(error)}`);
    assert.equal(error.code, 'ERR_UNAUTHENTICATED');
    return error.message;
  }
  assert.fail('expected the token to be refused');
};

describe('token lifetime and key retirement', () => {
  let h: AuthHarness;
  let clientId: string;
  let clientSecret: string;
  before(async () => {
    h = await createAuthHarness();
    ({ clientId, clientSecret } = await h.createClient());
  });
  after(() => h.dispose());

  const activeKey = async () => {
    const record = activeSigningKey(await h.store.auth.listSigningKeys());
    assert.ok(record);
    return { kid: record.kid, key: await importJWK(JSON.parse(record.privateJwk) as JWK, 'ES256') };
  };

  /** A token exactly as the issuer signs it, with the given times (epoch seconds). */
  const sign = async (signer: Awaited<ReturnType<typeof activeKey>>, iat: number, exp: number) =>
    `Bearer ${await new SignJWT({
      iss: ISSUER,
      sub: clientId,
      client_id: clientId,
      aud: `${ISSUER}/v1`,
      iat,
      exp,
      jti: crypto.randomUUID(),
      scope: 'retail.inventory:read',
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signer.kid })
      .sign(signer.key)}`;

  const nowSeconds = () => Math.floor(h.clock.now() / 1000);

  const loginKid = async (): Promise<string> => {
    const body = await readJson<AuthenticationResponse>(h.login(clientId, clientSecret));
    return decodeProtectedHeader(body.token.accessToken as string).kid as string;
  };

  it('refuses a correctly signed token whose exp is further than the lifetime after its iat', async () => {
    const key = await activeKey();
    const now = nowSeconds();
    assert.ok(await h.auth.guard(await sign(key, now, now + TTL), LOCATION));
    assert.match(await refusal(h.auth.guard(await sign(key, now, now + TTL + 1), LOCATION)), /lifetime/);
    assert.match(
      await refusal(h.auth.guard(await sign(key, now - 10, now - 10 + 10 * TTL), LOCATION)),
      /lifetime/,
    );
  });

  it('refuses a correctly signed token issued in the future beyond 1 s of leeway', async () => {
    const key = await activeKey();
    const now = nowSeconds();
    assert.ok(await h.auth.guard(await sign(key, now + 1, now + 1 + TTL), LOCATION));
    assert.match(
      await refusal(h.auth.guard(await sign(key, now + 5, now + 5 + TTL), LOCATION)),
      /not yet valid/,
    );
  });

  it('a key retired by rotation verifies its tokens until they expire, nothing issued after, and then nothing', async () => {
    const old = await activeKey();
    const issued = await sign(old, nowSeconds(), nowSeconds() + TTL);
    assert.ok(await h.auth.guard(issued, LOCATION));
    await rotateSigningKey(h.store, h.clock, TTL);
    await h.auth.refresh();
    const retiredAt = nowSeconds();
    // Still valid: signed before the retirement (and cached).
    assert.ok(await h.auth.guard(issued, LOCATION));
    // The retired key's private half leaks later: what it signs now is refused.
    h.clock.advance((RETIREMENT_GRACE_SECONDS + 1) * 1000);
    const late = await sign(old, nowSeconds(), nowSeconds() + TTL);
    assert.match(await refusal(h.auth.guard(late, LOCATION)), /retired key/);
    // The last token it could have signed expires at retiredAt + grace + lifetime; checked at use, cached or not.
    const lastPossible = await sign(
      old,
      retiredAt + RETIREMENT_GRACE_SECONDS,
      retiredAt + RETIREMENT_GRACE_SECONDS + TTL,
    );
    assert.ok(await h.auth.guard(lastPossible, LOCATION));
    h.clock.set((retiredAt + RETIREMENT_GRACE_SECONDS + TTL + 2) * 1000);
    await refusal(h.auth.guard(lastPossible, LOCATION));
    await refusal(h.auth.guard(issued, LOCATION));
  });

  it('login signs with the key active in the store, even before the poll saw a rotation', async () => {
    const before = await loginKid();
    const { kid } = await rotateSigningKey(h.store, h.clock, TTL);
    assert.notEqual(kid, before);
    // No refresh and no poll running: the login itself must see the rotation.
    assert.equal(await loginKid(), kid);
  });

  it('`keys retire` cuts the active key off at once: its tokens fail, login and the JWKS move on', async () => {
    const leaked = await activeKey();
    const token = await sign(leaked, nowSeconds(), nowSeconds() + TTL);
    assert.ok(await h.auth.guard(token, LOCATION));
    const result = await retireSigningKey(h.store, h.clock, leaked.kid);
    assert.ok(result.rotatedTo !== undefined && result.rotatedTo !== leaked.kid);
    assert.equal(await loginKid(), result.rotatedTo);
    await h.auth.refresh();
    await refusal(h.auth.guard(token, LOCATION));
    const { keys } = await readJson<JSONWebKeySet>(h.app.request('/.well-known/jwks.json'));
    assert.ok(!keys.some((key) => key.kid === leaked.kid));
    await assert.rejects(retireSigningKey(h.store, h.clock, 'no-such-kid'), /No signing key/);
  });
});
