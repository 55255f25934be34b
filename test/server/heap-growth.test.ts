import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appliedHeapGrowth, HEAP_GROWING_PERCENT, tuneHeapGrowth } from '../../src/server/heap-growth.js';
import { startTestServer } from '../helpers/test-server.js';

test('a serving process fixes V8’s heap growing factor when it starts', async () => {
  const { stop } = await startTestServer();
  try {
    assert.equal(appliedHeapGrowth(), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  } finally {
    await stop();
  }
});

test('an operator’s own --heap-growing-percent wins', () => {
  for (const own of ['--heap-growing-percent=150', '--heap_growing_percent=150', '--heap-growing-percent'])
    assert.equal(tuneHeapGrowth(['--enable-source-maps', own]), undefined, own);
  assert.equal(tuneHeapGrowth(['--enable-source-maps']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});
