import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import {
  activeSigningKey,
  ensureSigningKey,
  recordTokenTtl,
  rotateSigningKey,
} from '../../src/auth/signing-keys.js';
import { createTestClock } from '../../src/shared/clock.js';
import { openTempStore, type TempStore } from './harness.js';

describe('signing keys', () => {
  const temps: TempStore[] = [];
  const clock = createTestClock(Date.UTC(2025, 0, 1));
  let temp: TempStore;
  beforeEach(async () => {
    temp = await openTempStore();
    temps.push(temp);
  });
  after(async () => {
    for (const t of temps) await t.dispose();
  });

  it('creates one ES256 key on first start and reuses it afterwards', async () => {
    const first = await ensureSigningKey(temp.store, clock);
    assert.equal(first.alg, 'ES256');
    assert.equal(JSON.parse(first.publicJwk).d, undefined, 'the public JWK has no private member');
    assert.ok(JSON.parse(first.privateJwk).d);
    const second = await ensureSigningKey(temp.store, clock);
    assert.equal(second.kid, first.kid);
    assert.equal((await temp.store.auth.listSigningKeys()).length, 1);
  });

  it('leaves exactly one active key when several processes start at once', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => ensureSigningKey(temp.store, clock)));
    const keys = await temp.store.auth.listSigningKeys();
    assert.equal(keys.filter((key) => key.retiredAt === null).length, 1);
    const active = activeSigningKey(keys);
    for (const result of results) assert.ok(keys.some((key) => key.kid === result.kid));
    assert.ok(active);
  });

  it('rotates to a new active key and keeps the old one until its tokens expired', async () => {
    const ttl = 3600;
    const original = await ensureSigningKey(temp.store, clock);
    const rotated = await rotateSigningKey(temp.store, clock, ttl);
    assert.notEqual(rotated.kid, original.kid);
    assert.deepEqual(rotated.deleted, []);
    let keys = await temp.store.auth.listSigningKeys();
    assert.equal(activeSigningKey(keys)?.kid, rotated.kid);
    assert.ok(keys.find((key) => key.kid === original.kid)?.retiredAt);

    clock.advance(ttl * 1000);
    const second = await rotateSigningKey(temp.store, clock, ttl);
    assert.deepEqual(second.deleted, [], 'not before ttl + margin');
    clock.advance(301_000);
    const third = await rotateSigningKey(temp.store, clock, ttl);
    assert.deepEqual(third.deleted, [original.kid]);
    keys = await temp.store.auth.listSigningKeys();
    assert.deepEqual(keys.map((key) => key.kid).sort(), [rotated.kid, second.kid, third.kid].sort());
  });

  it('retains retired keys for the largest token TTL any server recorded', async () => {
    const original = await ensureSigningKey(temp.store, clock);
    await recordTokenTtl(temp.store, 86_400);
    await recordTokenTtl(temp.store, 60);
    assert.equal(await temp.store.settings.maxTokenTtlSeconds.get(), 86400);
    await rotateSigningKey(temp.store, clock, 60);
    clock.advance(3600_000);
    const later = await rotateSigningKey(temp.store, clock, 60);
    assert.ok(!later.deleted.includes(original.kid));
  });
});
