import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestClock } from '../../src/shared/clock.js';
import { type ClockSetting, createVirtualClock, parseDuration } from '../../src/shared/virtual-clock.js';

const memory = () => {
  let stored: ClockSetting | undefined;
  return {
    load: async () => stored,
    save: async (setting: ClockSetting) => {
      stored = setting;
    },
    update: async (change: (current: ClockSetting | undefined) => ClockSetting) => {
      stored = change(stored);
      return stored;
    },
  };
};

const T0 = Date.UTC(2025, 5, 1, 12);

/** Two instances (workers) of one sandbox: one store, one real clock. */
const twoInstances = async () => {
  const real = createTestClock(T0);
  const persistence = memory();
  const a = await createVirtualClock({ real, persistence });
  const b = await createVirtualClock({ real, persistence });
  return { real, persistence, a, b };
};

test('set, advance and reset move the virtual time; a running clock keeps running', async () => {
  const real = createTestClock(T0);
  const clock = await createVirtualClock({ real, persistence: memory() });
  assert.deepEqual(clock.view(), { now: new Date(T0).toISOString(), offsetSeconds: 0, frozen: false });
  await clock.set(Date.UTC(2025, 0, 1), false);
  real.advance(5_000);
  assert.equal(clock.now(), Date.UTC(2025, 0, 1) + 5_000);
  assert.equal(clock.view().offsetSeconds, (Date.UTC(2025, 0, 1) - T0) / 1000);
  await clock.advance(86_400_000);
  assert.equal(clock.now(), Date.UTC(2025, 0, 2) + 5_000);
  await clock.reset();
  assert.equal(clock.now(), real.now());
});

test('a frozen clock stands still until advanced', async () => {
  const real = createTestClock(T0);
  const clock = await createVirtualClock({ real, persistence: memory() });
  const view = await clock.set(T0 - 3_600_000, true);
  assert.equal(view.frozen, true);
  real.advance(60_000);
  assert.equal(clock.now(), T0 - 3_600_000);
  await clock.advance(90_000);
  assert.equal(clock.now(), T0 - 3_600_000 + 90_000);
  assert.equal(clock.view().frozen, true);
});

test('another instance takes up a change from the store on sync', async () => {
  const { real, persistence, a, b } = await twoInstances();
  await a.advance(7_200_000);
  assert.equal(b.now(), T0);
  await b.sync();
  assert.equal(b.now(), T0 + 7_200_000);
  const c = await createVirtualClock({ real, persistence });
  assert.equal(c.now(), T0 + 7_200_000, 'a new instance starts on the stored time');
});

test('a failed write leaves the clock where it was', async () => {
  const real = createTestClock(T0);
  const clock = await createVirtualClock({
    real,
    persistence: {
      load: async () => undefined,
      save: async () => {
        throw new Error('database is down');
      },
      update: async () => {
        throw new Error('database is down');
      },
    },
  });
  await assert.rejects(clock.advance(1000), /database is down/);
  await assert.rejects(clock.set(T0 + 1000, true), /database is down/);
  assert.equal(clock.now(), T0);
});

test('an advance adds to the stored time, which another instance may have moved since this one last read it', async () => {
  const { a, b } = await twoInstances();
  await a.advance(864_000_000);
  // b has not synced: it still thinks real time, yet its advance goes on from a's.
  await b.advance(3_600_000);
  assert.equal(b.now(), T0 + 864_000_000 + 3_600_000);
  await a.sync();
  assert.equal(a.now(), T0 + 864_000_000 + 3_600_000);
});

test('durations: 1d, 2h, 15m, 90s and sums; anything else is undefined', () => {
  assert.equal(parseDuration('1d'), 86_400);
  assert.equal(parseDuration('2h'), 7_200);
  assert.equal(parseDuration('15m'), 900);
  assert.equal(parseDuration('90s'), 90);
  assert.equal(parseDuration('1d2h'), 93_600);
  for (const bad of ['', '1x', '-1d', 'd', '1.5h']) assert.equal(parseDuration(bad), undefined, bad);
});
