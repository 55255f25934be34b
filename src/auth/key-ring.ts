import { type CryptoKey, importJWK, type JWK } from 'jose';
import type { SigningKeyRecord } from '../storage/store.js';
import { activeSigningKey, SIGNING_ALG } from './signing-keys.js';

/** The imported signing keys of one instance: the active private key, and every public key by kid. */
export interface KeyRing {
  readonly signingKid: string;
  readonly signingKey: CryptoKey;
  verificationKey(kid: string): CryptoKey | undefined;
  /** Epoch ms the key was retired at (it signs nothing after), or undefined while it is active. */
  retiredAt(kid: string): number | undefined;
  /** RFC 7517 JWK Set of every key still verifying tokens. */
  readonly jwks: { keys: JWK[] };
  /** Changes when the set of keys or the active key changes, so a reload can skip re-importing. */
  readonly fingerprint: string;
}

export const keyRingFingerprint = (records: readonly SigningKeyRecord[]): string =>
  records
    .map((key) => `${key.kid}:${key.retiredAt ?? 'active'}`)
    .sort()
    .join(',');

const publicJwkOf = (record: SigningKeyRecord): JWK => {
  const { kty, crv, x, y } = JSON.parse(record.publicJwk) as JWK;
  // Rebuilt member by member so nothing private can reach the JWKS even from a malformed record.
  return { kty, crv, x, y, kid: record.kid, alg: SIGNING_ALG, use: 'sig' } as JWK;
};

export const loadKeyRing = async (records: readonly SigningKeyRecord[]): Promise<KeyRing> => {
  // Keys of any other algorithm are ignored: verification is pinned to SIGNING_ALG.
  const usable = records.filter((record) => record.alg === SIGNING_ALG);
  const active = activeSigningKey(usable);
  if (active === undefined) throw new Error(`The store holds no active ${SIGNING_ALG} signing key.`);
  const jwks = usable.map(publicJwkOf);
  const verification = new Map<string, CryptoKey>();
  const retired = new Map(
    usable.flatMap((record) =>
      record.retiredAt === null ? [] : [[record.kid, Date.parse(record.retiredAt)] as const],
    ),
  );
  for (const jwk of jwks)
    verification.set(jwk.kid as string, (await importJWK(jwk, SIGNING_ALG)) as CryptoKey);
  return {
    signingKid: active.kid,
    signingKey: (await importJWK(JSON.parse(active.privateJwk) as JWK, SIGNING_ALG)) as CryptoKey,
    verificationKey: (kid) => verification.get(kid),
    retiredAt: (kid) => retired.get(kid),
    jwks: { keys: jwks },
    fingerprint: keyRingFingerprint(records),
  };
};
