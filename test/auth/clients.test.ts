import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createClientCredentials,
  listClientSummaries,
  revokeClient,
  updateClientGrants,
} from '../../src/auth/clients.js';
import { createTestClock } from '../../src/shared/clock.js';
import { LarderError } from '../../src/shared/errors.js';
import { openTempStore, type TempStore } from './harness.js';

describe('client management', () => {
  let temp: TempStore;
  const clock = createTestClock(Date.UTC(2025, 0, 1));
  before(async () => {
    temp = await openTempStore();
  });
  after(() => temp.dispose());

  it('creates a client with a 256-bit base64url secret stored only as a keyed hash', async () => {
    const created = await createClientCredentials(
      temp.store,
      { name: ' Acme ', locations: ['a', 'a', 'b'] },
      clock,
    );
    assert.match(created.clientSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(created.clientSecret, 'base64url').length, 32);
    assert.equal(created.name, 'Acme');
    assert.deepEqual(created.scopes, ['retail.inventory:read'], 'the default scope');
    assert.deepEqual(created.locations, ['a', 'b']);
    assert.equal(created.createdAt, '2025-01-01T00:00:00.000Z');
    const stored = await temp.store.auth.getClient(created.clientId);
    assert.ok(stored);
    assert.match(stored.secretHash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(stored).includes(created.clientSecret));
    const other = await createClientCredentials(temp.store, { name: 'b', allLocations: true });
    assert.notEqual(other.clientSecret, created.clientSecret);
    assert.notEqual(other.clientId, created.clientId);
  });

  it('grants retail:read only when asked for, and rejects unknown scopes', async () => {
    const both = await createClientCredentials(temp.store, {
      name: 'x',
      allLocations: true,
      scopes: ['retail:read', 'retail.inventory:read'],
    });
    assert.deepEqual(both.scopes, ['retail.inventory:read', 'retail:read']);
    await assert.rejects(
      createClientCredentials(temp.store, { name: 'x', allLocations: true, scopes: ['retail:write'] }),
      (error: unknown) => error instanceof LarderError && error.fieldName === 'scopes',
    );
  });

  it('requires a name and exactly one location grant form', async () => {
    const fails = (input: Parameters<typeof createClientCredentials>[1], field: string) =>
      assert.rejects(
        createClientCredentials(temp.store, input),
        (error: unknown) => error instanceof LarderError && error.fieldName === field,
      );
    await fails({ name: '', allLocations: true }, 'name');
    await fails({ name: 'x' }, 'locations');
    await fails({ name: 'x', locations: [] }, 'locations');
    await fails({ name: 'x', locations: [' '] }, 'locations');
    await fails({ name: 'x', locations: ['a'], allLocations: true }, 'locations');
    // An id no location can have (import, pull and the admin API refuse it) would be a grant that never applies.
    for (const id of ['a b', 'Café', '..', 'x'.repeat(201)])
      await assert.rejects(
        createClientCredentials(temp.store, { name: 'x', locations: ['a', id] }),
        (error: unknown) =>
          error instanceof LarderError &&
          error.fieldName === 'locations' &&
          error.message.startsWith(
            `locations has ${JSON.stringify(id)}, which is no location id: one is 1 to 200 visible ASCII`,
          ),
      );
  });

  it('lists clients without their secret hashes', async () => {
    const listed = await listClientSummaries(temp.store);
    assert.ok(listed.length >= 3);
    for (const client of listed) assert.ok(!('secretHash' in client));
  });

  it('revokes idempotently and updates grants; unknown ids are refused', async () => {
    const created = await createClientCredentials(temp.store, { name: 'r', locations: ['a'] });
    const revoked = await revokeClient(temp.store, created.clientId, clock);
    assert.equal(revoked.revokedAt, '2025-01-01T00:00:00.000Z');
    clock.advance(1000);
    assert.equal((await revokeClient(temp.store, created.clientId, clock)).revokedAt, revoked.revokedAt);

    const updated = await updateClientGrants(temp.store, created.clientId, { allLocations: true });
    assert.equal(updated.allLocations, true);
    assert.deepEqual(updated.locations, []);
    const narrowed = await updateClientGrants(temp.store, created.clientId, {
      locations: ['c'],
      scopes: ['retail:read'],
    });
    assert.deepEqual(
      [narrowed.allLocations, narrowed.locations, narrowed.scopes],
      [false, ['c'], ['retail:read']],
    );
    await assert.rejects(updateClientGrants(temp.store, created.clientId, {}), LarderError);
    await assert.rejects(revokeClient(temp.store, 'nope'), /No client with id nope/);
    await assert.rejects(
      updateClientGrants(temp.store, 'nope', { allLocations: true }),
      /No client with id nope/,
    );
  });
});
