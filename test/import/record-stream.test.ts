import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { convertBatch } from '../../src/import/convert-batch.js';
import { formatProblem, importFiles } from '../../src/import/import-files.js';
import {
  lineOfField,
  type RawRecord,
  RecordSyntaxError,
  readRecords,
} from '../../src/import/record-stream.js';
import type { Store } from '../../src/storage/store.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';

const read = async (...chunks: (string | Buffer)[]): Promise<RawRecord[]> => {
  const records: RawRecord[] = [];
  for await (const record of readRecords(Readable.from(chunks))) records.push(record);
  return records;
};

const syntaxError = async (text: string): Promise<RecordSyntaxError> => {
  try {
    await read(text);
  } catch (error) {
    assert.ok(error instanceof RecordSyntaxError, `not a RecordSyntaxError: ${String(error)}`);
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(text)}`);
};

const BOM = '\ufeff';

test('a JSON array and NDJSON give each record with the line it starts on', async () => {
  assert.deepEqual(await read('[\n  {"a": 1},\n  {\n    "b": 2\n  }\n]\n'), [
    { line: 2, text: '{"a": 1}' },
    { line: 3, text: '{\n    "b": 2\n  }' },
  ]);
  assert.deepEqual(await read('{"a": 1}\n\n{"b": "x,]"}\n'), [
    { line: 1, text: '{"a": 1}' },
    { line: 3, text: '{"b": "x,]"}' },
  ]);
  assert.deepEqual(await read('[]'), []);
});

test('a UTF-8 byte-order mark at the start of the file is skipped, as text or as bytes split across chunks', async () => {
  assert.deepEqual(await read(`${BOM}[\n{"a": 1}\n]`), [{ line: 2, text: '{"a": 1}' }]);
  assert.deepEqual(await read(`${BOM}{"a": 1}\n{"b": 2}`), [
    { line: 1, text: '{"a": 1}' },
    { line: 2, text: '{"b": 2}' },
  ]);
  const bytes = Buffer.from(`${BOM}{"a": 1}`, 'utf8');
  assert.deepEqual(await read(bytes.subarray(0, 2), bytes.subarray(2)), [{ line: 1, text: '{"a": 1}' }]);
  // Only at the start: elsewhere it is not blank.
  const inside = await syntaxError(`{"a": 1}\n${BOM}{"b": 2}`);
  assert.equal(inside.line, 2);
});

test('an array with a leading, doubled or trailing comma is a syntax error on the comma’s line', async () => {
  const leading = await syntaxError('[\n,{"a": 1}]');
  assert.equal(leading.line, 2);
  assert.match(leading.message, /expected a record or \] after \[, found ","/);

  const doubled = await syntaxError('[\n  {"a": 1},\n  ,\n  {"b": 2}\n]');
  assert.equal(doubled.line, 3);
  assert.match(doubled.message, /expected a record after ",", found another ","/);

  const trailing = await syntaxError('[\n  {"a": 1},\n  {"b": 2},\n]');
  assert.equal(trailing.line, 4);
  assert.match(trailing.message, /trailing comma/);

  const missing = await syntaxError('[\n  {"a": 1}\n  {"b": 2}\n]');
  assert.equal(missing.line, 3);
  assert.match(missing.message, /expected "," or \] after a record/);
});

test('the import reports a bad comma as FILE:LINE', async () => {
  // Only what importFiles uses of a store that never gets a record: the reader is under test here.
  let rolledBack = false;
  const session = {
    rollback: async () => {
      rolledBack = true;
    },
  };
  const store = {
    capabilities: { writesOnMainThread: false, embedded: false },
    records: { beginImport: async () => session },
    settings: {
      databaseKind: { get: async () => 'plain' },
      demoClient: { get: async () => undefined },
    },
  } as unknown as Store;
  const result = await importFiles(store, {
    locationId: 'L1',
    purchaseOrders: { path: 'po.json', input: Readable.from(['[\n{"id": 1},\n]']) },
  });
  assert.equal(result.committed, false);
  assert.ok(rolledBack);
  assert.deepEqual(result.problems.map(formatProblem), [
    'po.json:3 (file): expected a record after ",", found "]" (a trailing comma)',
  ]);
});

test('bytes that are not UTF-8 are a syntax error on their line, not U+FFFD; a character split across chunks is fine', async () => {
  const bytesError = async (...chunks: Buffer[]): Promise<RecordSyntaxError> => {
    const error = await read(...chunks).then(
      () => assert.fail('accepted'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof RecordSyntaxError, String(error));
    return error;
  };
  const utf8 = Buffer.from('{"a": 1}\n{"b": "é€"}\n', 'utf8');
  for (let cut = 0; cut <= utf8.length; cut++)
    assert.deepEqual(
      (await read(utf8.subarray(0, cut), utf8.subarray(cut))).map((record) => record.text),
      ['{"a": 1}', '{"b": "é€"}'],
    );
  const latin1 = Buffer.from('{"a": 1}\n{"b": 2}\n{"c": "caf\xe9"}\n', 'latin1');
  const bad = await bytesError(latin1.subarray(0, 12), latin1.subarray(12));
  assert.equal(bad.line, 3);
  assert.equal(bad.message, 'the file is not UTF-8: byte 0xe9 here; save it as UTF-8');
  // A lead byte at the end of one chunk, a byte that cannot continue it at the start of the next.
  const split = await bytesError(
    Buffer.from('{"a": 1}\n{"b": "\xc3', 'latin1'),
    Buffer.from('("}', 'latin1'),
  );
  assert.equal(split.line, 2);
  const cutOff = await bytesError(Buffer.from('{"a": 1}\n{"b": 2}\n\xe2\x82', 'latin1'));
  assert.equal(cutOff.line, 3);
  assert.equal(cutOff.message, 'the file ends in the middle of a UTF-8 character');
});

test('the import reports bytes that are not UTF-8 as FILE:LINE', async () => {
  const store = {
    capabilities: { writesOnMainThread: false, embedded: false },
    records: { beginImport: async () => ({ rollback: async () => {} }) },
    settings: {
      databaseKind: { get: async () => 'plain' },
      demoClient: { get: async () => undefined },
    },
  } as unknown as Store;
  const result = await importFiles(store, {
    locationId: 'L1',
    purchaseOrders: {
      path: 'po.json',
      input: Readable.from([Buffer.from('[\n{"id": "\xff"}\n]', 'latin1')]),
    },
  });
  assert.deepEqual(result.problems.map(formatProblem), [
    'po.json:2 (file): the file is not UTF-8: byte 0xff here; save it as UTF-8',
  ]);
});

const pretty = `{
  "id": "x",
  "items": [
    {
      "name": "a",
      "quantity": 1
    },
    {
      "name": "b",
      "quantity": -1,
      "3": { "deep": [10, {"x": null}] }
    }
  ],
  "totals": {}
}`;

test('lineOfField finds the line of a field path, of the deepest part present, or of the record', () => {
  assert.equal(lineOfField(pretty, 40, 'id'), 41);
  assert.equal(lineOfField(pretty, 40, 'items'), 42);
  assert.equal(lineOfField(pretty, 40, 'items[1]'), 47);
  assert.equal(lineOfField(pretty, 40, 'items[1].quantity'), 49);
  assert.equal(lineOfField(pretty, 40, 'items[1][3].deep[1].x'), 50);
  assert.equal(lineOfField(pretty, 40, 'items[0].quantity'), 45);
  // Missing: its object.
  assert.equal(lineOfField(pretty, 40, 'items[1].sku'), 47);
  assert.equal(lineOfField(pretty, 40, 'totals.total'), 53);
  assert.equal(lineOfField(pretty, 40, 'supplier'), 40);
  assert.equal(lineOfField(pretty, 40, '(record)'), 40);
  // A prefix of another key's name is not that key.
  assert.equal(lineOfField('{\n"item": 1,\n"items": [\n2]}', 1, 'items[0]'), 4);
});

test('lineOfField steps over a value nested 100,000 deep without descending into it', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const text = `{"a":\n${deep},\n"b": "x\\"]{",\n"items": [\n1]}`;
  assert.equal(lineOfField(text, 1, 'items[0]'), 5);
  assert.equal(lineOfField(text, 1, 'b'), 3);
  assert.equal(lineOfField(`{"a":${deep}}`, 7, 'a'), 7);
  assert.equal(lineOfField(`{"a":${deep}}`, 7, 'a[0][0][0]'), 7);
});

test('a problem deep in a pretty-printed record points at its own line', async () => {
  const order = purchaseOrderFixture(1, { modifiedAt: Date.UTC(2024, 4, 1) });
  const text = JSON.stringify({ ...order, items: [{ ...order.items[0], name: 7 }] }, null, 2);
  const lines = text.split('\n');
  const nameLine = lines.findIndex((l) => l.includes('"name": 7')) + 1;
  assert.ok(nameLine > 10);

  const records = await read(`[\n${text}\n]`);
  assert.equal(records[0]?.line, 2);
  const { problems } = convertBatch({
    kind: 'purchaseOrders',
    first: 0,
    texts: records.map((r) => r.text),
    lines: records.map((r) => r.line),
  });
  assert.deepEqual(
    problems.map((p) => [p.line, p.fieldName]),
    [[nameLine + 1, 'items[0].name']],
  );
});
