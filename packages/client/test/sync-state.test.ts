import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSyncState } from '../src/sync.js';

/** The dedup state alone: what a resumed sync yields again, by watermark. */

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** As a walk does: a fresh version is yielded, and handled once the caller's loop is done with it. */
const admit = (state: ReturnType<typeof createSyncState>, recordId: string, modifiedDate: string) => {
  if (!state.fresh(recordId, modifiedDate)) return false;
  state.handled(recordId, modifiedDate);
  return true;
};

test('a sync from an instant keeps leaving older changes out when resumed from its watermark', () => {
  const first = createSyncState('2025-06-02T12:00:00Z');
  assert.equal(admit(first, id(1), '2025-06-02T09:00:00Z'), false, 'before the instant');
  assert.equal(admit(first, id(2), '2025-06-02T13:00:00Z'), true);
  const saved = JSON.parse(JSON.stringify(first.watermark()));
  assert.deepEqual(saved, {
    day: '2025-06-02',
    seen: { [id(2)]: '2025-06-02T13:00:00Z' },
    from: '2025-06-02T12:00:00.000Z',
  });
  // The next sync asks from the start of that day again: the older change is still not a change.
  const again = createSyncState(saved);
  assert.equal(admit(again, id(1), '2025-06-02T09:00:00Z'), false);
  assert.equal(admit(again, id(2), '2025-06-02T13:00:00Z'), false, 'already yielded');
  assert.equal(admit(again, id(3), '2025-06-03T01:00:00Z'), true);
  // Past that day, the instant no longer matters and leaves the watermark.
  assert.deepEqual(again.watermark(), { day: '2025-06-03', seen: { [id(3)]: '2025-06-03T01:00:00Z' } });
});

test('a watermark with an instant that is no date is refused', () => {
  assert.throws(
    () => createSyncState({ day: '2025-06-02', seen: {}, from: 'noon' }),
    /TypeError: since is not a watermark: from must be an RFC 3339 date-time, not "noon"$/,
  );
});
