import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLookupBatcher } from '../../src/storage/postgres/lookup-batcher.js';

/** A fetch that records each call and answers from `stored`. */
const recordingFetch = (stored: Record<string, string>) => {
  const calls: { group: string; ids: string[] }[] = [];
  const fetchMany = async (group: string, ids: readonly string[]) => {
    calls.push({ group, ids: [...ids] });
    return new Map(ids.flatMap((id) => (stored[id] === undefined ? [] : [[id, stored[id]] as const])));
  };
  return { calls, fetchMany };
};

test('lookups of one turn become one fetch per group, each id asked once', async () => {
  const { calls, fetchMany } = recordingFetch({ a: 'A', b: 'B', c: 'C' });
  const batcher = createLookupBatcher(fetchMany);
  const results = await Promise.all([
    batcher.get('loc-1', 'a'),
    batcher.get('loc-1', 'b'),
    batcher.get('loc-1', 'a'),
    batcher.get('loc-2', 'c'),
    batcher.get('loc-1', 'missing'),
  ]);
  assert.deepEqual(results, ['A', 'B', 'A', 'C', undefined]);
  assert.deepEqual(calls, [
    { group: 'loc-1', ids: ['a', 'b', 'missing'] },
    { group: 'loc-2', ids: ['c'] },
  ]);
});

test('lookups of later turns are fetched again, not served from an earlier answer', async () => {
  const stored: Record<string, string> = { a: 'first' };
  const { calls, fetchMany } = recordingFetch(stored);
  const batcher = createLookupBatcher(fetchMany);
  assert.equal(await batcher.get('loc', 'a'), 'first');
  stored['a'] = 'second';
  assert.equal(await batcher.get('loc', 'a'), 'second');
  assert.equal(calls.length, 2);
});

test('a failed fetch rejects every lookup of its group and no other', async () => {
  const batcher = createLookupBatcher(async (group, ids) => {
    if (group === 'down') throw new Error('connection lost');
    return new Map(ids.map((id) => [id, id.toUpperCase()]));
  });
  const [one, two, other] = await Promise.allSettled([
    batcher.get('down', 'a'),
    batcher.get('down', 'b'),
    batcher.get('up', 'c'),
  ]);
  assert.equal(one.status, 'rejected');
  assert.equal(two.status, 'rejected');
  assert.deepEqual(other, { status: 'fulfilled', value: 'C' });
});
