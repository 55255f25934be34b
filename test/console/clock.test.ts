import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockMoved } from '../../console/src/clock.js';

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
