import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTransport, DEFAULT_RETRY, type HttpRequest, realTimeoutSignal } from '../src/transport.js';

/**
 * The transport's meter on a scripted server: each request waits in `pending` until the test answers it, so the
 * test sees how many are in flight at once. Time is a number the fake sleep moves; nothing waits in real time.
 */
const scripted = () => {
  let time = Date.UTC(2026, 0, 1);
  const pending: { url: string; answer: (status: number, headers?: Record<string, string>) => void }[] = [];
  let arrived: (() => void) | undefined;
  const transport = createTransport({
    fetch: (async (input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
        pending.push({
          url: String(input),
          answer: (status, headers = {}) => resolve(new Response('{}', { status, headers })),
        });
        arrived?.();
      })) as typeof fetch,
    retry: DEFAULT_RETRY,
    timeoutMs: 60_000,
    sleep: async (ms) => {
      time += ms;
    },
    // The test answers every request long before a real minute.
    timeoutSignal: realTimeoutSignal,
    now: () => time,
    random: () => 0,
  });
  /** Lets every call started so far reach the fetch or a wait. */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const send = (n: number, signal?: AbortSignal) => {
    const request: HttpRequest = { url: `http://larder.test/${n}`, method: 'GET', headers: {}, limit: 'loc' };
    return transport.send(signal === undefined ? request : { ...request, signal });
  };
  /** Answers the request first in flight. */
  const answer = async (status: number, headers?: Record<string, string>) => {
    const next = pending.shift();
    assert.ok(next !== undefined, 'a request is in flight');
    next.answer(status, headers);
    await settle();
  };
  return { pending, send, answer, settle };
};

const remaining = (n: number) => ({ 'x-ratelimit-remaining': String(n) });

test('no more requests go at once than the last answer says remain', async () => {
  const server = scripted();
  const first = server.send(0);
  await server.settle();
  await server.answer(200, remaining(2));
  await first;
  const calls = [1, 2, 3, 4, 5, 6].map((n) => server.send(n));
  await server.settle();
  assert.equal(server.pending.length, 2, 'two remain: two go');
  for (let answered = 0; answered < 6; answered++) {
    assert.ok(server.pending.length <= 2);
    await server.answer(200, remaining(2));
  }
  assert.equal((await Promise.all(calls)).length, 6);
});

test('after a 429, one request goes first once the hold ends; its answer lets the rest go', async () => {
  const server = scripted();
  const calls = [1, 2, 3, 4].map((n) => server.send(n));
  await server.settle();
  assert.equal(server.pending.length, 4, 'nothing known yet: all go');
  for (let n = 0; n < 4; n++) await server.answer(429, { 'retry-after': '1', ...remaining(0) });
  assert.equal(server.pending.length, 1, 'after the hold, one request alone');
  await server.answer(200, remaining(10));
  assert.equal(server.pending.length, 3, 'ten remain: the other three at once');
  for (let n = 0; n < 3; n++) await server.answer(200, remaining(10));
  assert.deepEqual(
    (await Promise.all(calls)).map((answer) => answer.status),
    [200, 200, 200, 200],
  );
});

test('a server that sends no rate-limit fields is never metered, even after a 429', async () => {
  const server = scripted();
  const calls = [1, 2, 3].map((n) => server.send(n));
  await server.settle();
  for (let n = 0; n < 3; n++) await server.answer(429, { 'retry-after': '1' });
  assert.equal(server.pending.length, 1, 'after the hold, one request alone');
  await server.answer(200);
  assert.equal(server.pending.length, 2, 'its answer names no limit: the rest at once');
  await server.answer(200);
  await server.answer(200);
  await Promise.all(calls);
});

test('a call aborted while it waits its turn ends at once, and the turn passes to the next', async () => {
  const server = scripted();
  const first = server.send(0);
  await server.settle();
  await server.answer(200, remaining(1));
  await first;
  const going = server.send(1);
  const controller = new AbortController();
  const aborted = server.send(2, controller.signal);
  const waiting = server.send(3);
  await server.settle();
  assert.equal(server.pending.length, 1);
  controller.abort();
  await assert.rejects(aborted, { name: 'AbortError' });
  await server.answer(200, remaining(1));
  await going;
  assert.deepEqual(
    server.pending.map((request) => request.url),
    ['http://larder.test/3'],
  );
  await server.answer(200, remaining(1));
  await waiting;
});
