import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRecordConverter } from '../../src/import/record-converter.js';
import { collectLocation } from '../seed/collect.js';

const { orders } = collectLocation({ days: 28, ordersPerWeek: 30, items: 30, suppliers: 4 });
const batch = (from: number, to: number) => ({
  kind: 'purchaseOrders' as const,
  first: from,
  texts: orders.slice(from, to).map((order) => JSON.stringify(order)),
  lines: orders.slice(from, to).map((_, i) => from + i + 1),
});

test('batches come back converted and in order, the first from this thread and the rest from the worker', async () => {
  const converter = createRecordConverter();
  converter.prepare();
  try {
    const answers = await Promise.all(
      [batch(0, 10), batch(10, 20), batch(20, 30)].map((b) => converter.convert(b)),
    );
    assert.deepEqual(
      answers.map((answer) => answer.records.map((record) => record.id)),
      [0, 10, 20].map((from) => orders.slice(from, from + 10).map((order) => order.id.toLowerCase())),
    );
    assert.ok(answers.every((answer) => answer.problems.length === 0));
  } finally {
    await converter.close();
  }
});

test('a record with a problem stops the batch storing anything and is reported by line', async () => {
  const converter = createRecordConverter();
  try {
    await converter.convert(batch(0, 1));
    const broken = batch(0, 3);
    broken.texts[1] = '{"id": 1';
    const answer = await converter.convert(broken);
    assert.deepEqual(answer.records, []);
    assert.equal(answer.problems.length, 1);
    assert.equal(answer.problems[0]?.line, 2);
    assert.match(answer.problems[0]?.message ?? '', /is not valid JSON/);
  } finally {
    await converter.close();
  }
});

test('a worker that fails rejects what it was converting and everything after', async () => {
  const converter = createRecordConverter({
    script: new URL('../helpers/failing-worker.mjs', import.meta.url),
  });
  try {
    await converter.convert(batch(0, 5));
    await assert.rejects(converter.convert(batch(5, 10)), /worker broke/);
    await assert.rejects(converter.convert(batch(10, 15)), /worker broke/);
  } finally {
    await converter.close();
  }
});

test('without a worker every batch is converted on this thread', async () => {
  const converter = createRecordConverter({
    inWorker: false,
    script: new URL('../helpers/failing-worker.mjs', import.meta.url),
  });
  converter.prepare();
  try {
    for (const from of [0, 5, 10])
      assert.equal((await converter.convert(batch(from, from + 5))).records.length, 5);
  } finally {
    await converter.close();
  }
});
