import { randomUUID } from 'node:crypto';
import { errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../shared/clock.js';
import type { KeyRing } from './key-ring.js';
import { SIGNING_ALG } from './signing-keys.js';

/** RFC 9068 JWT access tokens, issued and verified by this one service. */

export const ACCESS_TOKEN_TYP = 'at+jwt';

/** Issuer and verifier are the same service, so clocks agree: at most 1 s leeway (decisions.md). */
const LEEWAY_SECONDS = 1;

/**
 * How long after its retirement a key may still have signed: logins re-read the key state before signing, so
 * only clock skew between instances and a signature racing the rotation remain.
 */
export const RETIREMENT_GRACE_SECONDS = 5;

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface IssuedToken {
  token: string;
  /** Epoch ms of `exp`. */
  expiresAt: number;
  /** The lifetime, for `expires_in` (exp - iat: exact, unlike exp - now with a sub-second clock). */
  expiresIn: number;
  /** The key that signed it. */
  kid: string;
}

export const issueAccessToken = async (
  keys: KeyRing,
  settings: TokenSettings,
  clock: Clock,
  clientId: string,
  scopes: readonly string[],
): Promise<IssuedToken> => {
  const issuedAt = Math.floor(clock.now() / 1000);
  const expiresAt = issuedAt + settings.ttlSeconds;
  const token = await new SignJWT({ client_id: clientId, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYP, kid: keys.signingKid })
    .setIssuer(settings.issuer)
    .setSubject(clientId)
    .setAudience(settings.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomUUID())
    .sign(keys.signingKey);
  return { token, expiresAt: expiresAt * 1000, expiresIn: settings.ttlSeconds, kid: keys.signingKid };
};

export interface VerifiedToken {
  clientId: string;
  scopes: readonly string[];
  kid: string;
  /** Epoch ms after which the token is rejected (`exp` plus the leeway). */
  rejectAfter: number;
  /** Epoch ms before which it is rejected: issued more than the leeway in the (virtual) future. */
  rejectBefore: number;
}

export type Verification =
  | { ok: true; token: VerifiedToken }
  | { ok: false; reason: string; unknownKey: boolean };

class UnknownKeyError extends Error {}

const describe = (error: unknown): string => {
  if (error instanceof errors.JWTExpired) return 'The access token expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `The access token ${error.claim} is not accepted`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The access token algorithm is not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The access token signature is not valid';
  return 'The access token is malformed';
};

/**
 * Pins algorithm, issuer, audience, `typ` and expiry (RFC 8725). The header's `kid` only selects among our
 * own keys; `alg` must equal SIGNING_ALG before any key is used, so `none` and HS256-with-the-public-key fail.
 */
export const verifyAccessToken = async (
  token: string,
  keys: KeyRing,
  settings: TokenSettings,
  clock: Clock,
): Promise<Verification> => {
  let payload: JWTPayload;
  let kid = '';
  try {
    ({ payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid === undefined ? undefined : keys.verificationKey(header.kid);
        if (key === undefined) throw new UnknownKeyError();
        kid = header.kid as string;
        return key;
      },
      {
        algorithms: [SIGNING_ALG],
        issuer: settings.issuer,
        audience: settings.audience,
        typ: ACCESS_TOKEN_TYP,
        clockTolerance: LEEWAY_SECONDS,
        currentDate: new Date(clock.now()),
        requiredClaims: ['sub', 'client_id', 'exp', 'iat', 'jti', 'scope'],
      },
    ));
  } catch (error) {
    if (error instanceof UnknownKeyError)
      return { ok: false, reason: 'The access token is signed with an unknown key', unknownKey: true };
    return { ok: false, reason: describe(error), unknownKey: false };
  }
  const { sub, client_id: clientId, scope, exp, iat } = payload;
  if (
    typeof clientId !== 'string' ||
    clientId !== sub ||
    typeof scope !== 'string' ||
    exp === undefined ||
    iat === undefined
  )
    return { ok: false, reason: 'The access token claims are not valid', unknownKey: false };
  // A clock moved backwards (the sandbox's virtual clock) makes tokens issued "later" not yet valid.
  if ((iat - LEEWAY_SECONDS) * 1000 > clock.now())
    return { ok: false, reason: 'The access token is not yet valid', unknownKey: false };
  // We never sign longer than the configured lifetime: a longer one is forged or from a leaked key.
  if (exp - iat > settings.ttlSeconds)
    return { ok: false, reason: 'The access token lifetime is too long', unknownKey: false };
  // A retired key signs nothing after its retirement, so every token it signed expires by retiredAt + lifetime:
  // a later iat is forged, and the key stops verifying at that bound (rejectAfter, checked at each use).
  const retiredAt = keys.retiredAt(kid);
  if (retiredAt !== undefined && iat * 1000 > retiredAt + RETIREMENT_GRACE_SECONDS * 1000)
    return { ok: false, reason: 'The access token is signed with a retired key', unknownKey: false };
  return {
    ok: true,
    token: {
      clientId,
      scopes: scope.split(' ').filter((s) => s !== ''),
      kid,
      rejectAfter: (exp + LEEWAY_SECONDS) * 1000,
      rejectBefore: (iat - LEEWAY_SECONDS) * 1000,
    },
  };
};
