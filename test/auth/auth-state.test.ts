import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { createAuthState } from '../../src/auth/auth-state.js';
import { ensureSigningKey } from '../../src/auth/signing-keys.js';
import { createTestClock } from '../../src/shared/clock.js';
import { type Logger, silentLogger as silent } from '../../src/shared/logger.js';
import { openTempStore, type TempStore } from './harness.js';

describe('auth state polling', () => {
  let temp: TempStore;
  before(async () => {
    temp = await openTempStore();
  });
  after(() => temp.dispose());

  it('logs a store outage once and its recovery once, and keeps serving what it knew', async () => {
    const clock = createTestClock();
    await ensureSigningKey(temp.store, clock);
    const lines: string[] = [];
    const logger: Logger = {
      debug: (msg) => lines.push(`debug ${msg}`),
      info: (msg) => lines.push(`info ${msg}`),
      warn: (msg) => lines.push(`warn ${msg}`),
      error: (msg) => lines.push(`error ${msg}`),
    };
    const state = await createAuthState({ store: temp.store, clock, logger });
    const kid = state.keys().signingKid;
    lines.length = 0;
    const realVersion = temp.store.auth.version.bind(temp.store.auth);
    let calls = 0;
    temp.store.auth.version = async () => {
      calls++;
      throw new Error('database is locked');
    };
    try {
      for (let i = 0; i < 5; i++) await state.pollOnce();
      assert.equal(calls, 5);
      assert.deepEqual(lines, ['warn auth state reload failing; serving the last known clients and keys']);
      assert.equal(state.keys().signingKid, kid);
      temp.store.auth.version = realVersion;
      await state.pollOnce();
      await state.pollOnce();
      assert.equal(lines.length, 2);
      assert.equal(lines[1], 'info auth state reload recovered');
    } finally {
      temp.store.auth.version = realVersion;
    }
  });

  it('polls every interval until stopped (timers mocked: no waiting)', async () => {
    const state = await createAuthState({ store: temp.store, clock: createTestClock(), logger: silent });
    const realVersion = temp.store.auth.version.bind(temp.store);
    let calls = 0;
    temp.store.auth.version = async () => {
      calls++;
      return realVersion();
    };
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const stop = state.startPolling(250);
      mock.timers.tick(249);
      assert.equal(calls, 0);
      mock.timers.tick(1);
      assert.equal(calls, 1);
      // The next poll is scheduled once this one has settled.
      await state.refresh();
      await new Promise<void>((resolve) => setImmediate(resolve));
      mock.timers.tick(250);
      assert.equal(calls, 2);
      await stop();
      mock.timers.tick(1000);
      assert.equal(calls, 2);
    } finally {
      mock.timers.reset();
      temp.store.auth.version = realVersion;
    }
  });

  it('its stop waits for the poll in flight, whose failure (the store closing under it) logs nothing', async () => {
    const lines: string[] = [];
    const logger: Logger = { ...silent, warn: (msg) => lines.push(msg), info: (msg) => lines.push(msg) };
    const state = await createAuthState({ store: temp.store, clock: createTestClock(), logger });
    lines.length = 0;
    const realVersion = temp.store.auth.version.bind(temp.store);
    let fail!: (error: Error) => void;
    let calls = 0;
    temp.store.auth.version = () => {
      calls++;
      return new Promise((_, reject) => {
        fail = reject;
      });
    };
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const stop = state.startPolling(250);
      mock.timers.tick(250);
      assert.equal(calls, 1);
      let settled = false;
      const stopped = stop().then(() => {
        settled = true;
      });
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(settled, false, 'the stop waits for the poll in flight');
      fail(new Error('Cannot use a pool after calling end on the pool'));
      await stopped;
      mock.timers.tick(1000);
      assert.equal(calls, 1, 'no poll after the stop');
      assert.deepEqual(lines, []);
    } finally {
      mock.timers.reset();
      temp.store.auth.version = realVersion;
    }
  });
});
