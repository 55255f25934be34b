import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openWorkerChannel } from '../../src/shared/worker-channel.js';

const ECHO = new URL('../helpers/echo-worker.mjs', import.meta.url);

test('answers come back in request order, past maxInFlight too', async () => {
  const channel = openWorkerChannel<number, number>(ECHO, { name: 'echo', maxInFlight: 2 });
  try {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => channel.request(i)));
    assert.deepEqual(
      answers,
      Array.from({ length: 50 }, (_, i) => i * 2),
    );
  } finally {
    await channel.close();
  }
});

test('a worker that fails rejects what it was answering, everything queued and everything after', async () => {
  const channel = openWorkerChannel<number, number>(ECHO, { name: 'The echo worker', maxInFlight: 2 });
  assert.equal(await channel.request(1), 2);
  const broken = assert.rejects(channel.request(-1), /worker broke/);
  const queued = assert.rejects(channel.request(3), /worker broke/);
  await broken;
  await queued;
  await assert.rejects(channel.request(4), /worker broke/);
  await channel.close();
});

test('answers the worker posted before it failed still arrive', async () => {
  // The failure travels on another port than the answers; many answers ahead of it give it room to overtake.
  for (let round = 0; round < 5; round++) {
    const channel = openWorkerChannel<number, number>(ECHO, { name: 'The echo worker', maxInFlight: 500 });
    const answered = Promise.all(Array.from({ length: 400 }, (_, i) => channel.request(i)));
    const broken = assert.rejects(channel.request(-1), /worker broke/);
    assert.deepEqual(
      await answered,
      Array.from({ length: 400 }, (_, i) => i * 2),
    );
    await broken;
    await channel.close();
  }
});

test('close rejects what is unanswered and names the worker', async () => {
  const channel = openWorkerChannel<number, number>(ECHO, { name: 'The echo worker' });
  const pending = assert.rejects(channel.request(1), /The echo worker was closed/);
  await channel.close();
  await pending;
  await assert.rejects(channel.request(2), /The echo worker was closed/);
});
