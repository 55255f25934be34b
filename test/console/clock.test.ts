import assert from 'node:assert/strict';
import { test } from 'node:test';
import { badgeTime, clockMoved } from '../../console/src/clock.js';

const running = (offsetSeconds: number) => ({
  now: '2026-01-01T00:00:00.000Z',
  offsetSeconds,
  frozen: false,
});
const frozen = (now: string, offsetSeconds: number) => ({ now, offsetSeconds, frozen: true });

test('a clock that only ran on between two reads was not moved; one set, advanced, frozen or run again was', () => {
  // Running: its time changes, its offset (rounded to a second) does not.
  assert.equal(clockMoved(running(86_400), { ...running(86_400), now: '2026-01-01T00:00:10.000Z' }), false);
  assert.equal(clockMoved(running(86_400), running(86_401)), false);
  assert.equal(clockMoved(running(0), running(3 * 86_400)), true);
  // Frozen: its offset from real time grows, its time does not.
  assert.equal(
    clockMoved(frozen('2026-01-02T03:04:05.000Z', 10), frozen('2026-01-02T03:04:05.000Z', 0)),
    false,
  );
  assert.equal(
    clockMoved(frozen('2026-01-02T03:04:05.000Z', 10), frozen('2026-01-03T03:04:05.000Z', 0)),
    true,
  );
  assert.equal(clockMoved(running(10), frozen('2026-01-02T03:04:05.000Z', 10)), true);
  assert.equal(clockMoved(frozen('2026-01-02T03:04:05.000Z', 10), running(10)), true);
});

test('the header badge runs a clock on between reads, holds a frozen one, and claims no time while Larder does not answer', () => {
  const readAt = Date.parse('2030-01-01T00:00:00.000Z');
  const read = { view: running(0), readAt };
  read.view.now = '2026-01-01T00:00:00.000Z';
  assert.equal(badgeTime(undefined, readAt, true), undefined);
  assert.equal(badgeTime(read, readAt + 5000, true), '2026-01-01T00:00:05.000Z');
  assert.equal(
    badgeTime({ view: frozen('2026-01-02T03:04:05.000Z', 0), readAt }, readAt + 5000, true),
    '2026-01-02T03:04:05.000Z',
  );
  assert.equal(badgeTime(read, readAt + 5000, false), undefined);
});
