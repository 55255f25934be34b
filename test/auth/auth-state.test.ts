import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuthState } from '../../src/auth/auth-state.js';
import { ensureSigningKey } from '../../src/auth/signing-keys.js';
import { createTestClock } from '../../src/shared/clock.js';
import type { Logger } from '../../src/shared/logger.js';
import { eventually, openTempStore, type TempStore } from './harness.js';

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
    const stop = state.startPolling(5);
    try {
      await eventually(async () => assert.ok(calls >= 5), 1000);
      assert.deepEqual(lines, ['warn auth state reload failing; serving the last known clients and keys']);
      assert.equal(state.keys().signingKid, kid);
      temp.store.auth.version = realVersion;
      await eventually(async () => assert.equal(lines.length, 2), 1000);
      assert.equal(lines[1], 'info auth state reload recovered');
    } finally {
      stop();
      temp.store.auth.version = realVersion;
    }
  });
});
