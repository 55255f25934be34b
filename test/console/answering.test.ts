import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAnswering, noting, onAnswering } from '../../console/src/answering.js';

test('a call Larder did not answer marks it not answering, and the next answer of any kind (an error too) marks it back', async () => {
  const seen: boolean[] = [];
  const stop = onAnswering((answering) => seen.push(answering));
  const noAnswer = () => noting(Promise.reject(new TypeError('Failed to fetch')));
  try {
    assert.equal(isAnswering(), true);
    await assert.rejects(noAnswer(), /Failed to fetch/);
    await assert.rejects(noAnswer());
    assert.equal(isAnswering(), false);
    const refused = new Response('{"code":40401}', { status: 404 });
    assert.equal(await noting(Promise.resolve(refused)), refused);
    assert.equal(isAnswering(), true);
    // Told once per change, not once per call.
    assert.deepEqual(seen, [false, true]);
  } finally {
    stop();
  }
  await assert.rejects(noAnswer());
  assert.deepEqual(seen, [false, true], 'a listener stopped is told nothing more');
});
