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
  // Only what importFiles uses of a store: the reader is under test here. The records before the bad comma are
  // still judged (a file of the other kind is said), so the one here is valid, put, and rolled back.
  let rolledBack = false;
  const session = {
    put: async () => {},
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
    purchaseOrders: {
      path: 'po.json',
      input: Readable.from([
        `[\n${JSON.stringify(purchaseOrderFixture(1, { modifiedAt: Date.UTC(2024, 4, 1) }))},\n]`,
      ]),
    },
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

test('a record spread over many chunks is searched a chunk at a time, never as one growing text', async () => {
  // Each chunk used to be appended to the unfinished record and the result searched: the record so far was
  // copied and searched again for every chunk, quadratic in its size (8 MiB in 64 KiB chunks took 0.5 s, 32 MiB
  // 6 s). Every search the reader makes is watched here: none may be over more than the chunk it is in.
  const chunk = 'x'.repeat(1000);
  const chunks = ['{"a": "', ...Array.from({ length: 300 }, () => chunk), '"}\n{"b": 1}\n'];
  const indexOf = String.prototype.indexOf;
  let longest = 0;
  String.prototype.indexOf = function (this: string, ...args: Parameters<typeof indexOf>) {
    longest = Math.max(longest, this.length);
    return indexOf.apply(this, args);
  };
  let records: RawRecord[];
  try {
    records = await read(...chunks);
  } finally {
    String.prototype.indexOf = indexOf;
  }
  assert.deepEqual(records, [
    { line: 1, text: `{"a": "${chunk.repeat(300)}"}` },
    { line: 2, text: '{"b": 1}' },
  ]);
  assert.ok(longest > 0 && longest <= chunk.length + 16, `searched a text of ${longest} characters`);
});

test('a record longer than the limit (in UTF-8 bytes) is a syntax error at its first line, however it is split', async () => {
  const limit = 64;
  const readLimited = async (...chunks: (string | Buffer)[]) => {
    const records: RawRecord[] = [];
    for await (const record of readRecords(Readable.from(chunks), 'file', limit)) records.push(record);
    return records;
  };
  // 64 bytes exactly: 9 around the value, 27 two-byte characters and an x; then one more x.
  const longest = `{"a": "${'é'.repeat(27)}x"}`;
  assert.equal(Buffer.byteLength(longest), limit);
  const tooLong = `{"a": "${'é'.repeat(27)}xx"}`;
  const bytes = Buffer.from(`{"b": 1}\n${longest}\n${tooLong}\n`);
  for (let cut = 0; cut <= bytes.length; cut += 3) {
    const error = await readLimited(bytes.subarray(0, cut), bytes.subarray(cut)).then(
      () => assert.fail(`accepted, cut at ${cut}`),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof RecordSyntaxError, String(error));
    assert.equal(error.line, 3);
    assert.equal(error.message, 'this record is longer than 64 bytes, the most one record may be');
  }
  assert.deepEqual(
    (await readLimited(`[{"b": 1},\n${longest}]`)).map((record) => record.line),
    [1, 2],
  );
  // The default is stated in MiB.
  const mib = await (async () => {
    for await (const _ of readRecords(Readable.from([`{"a": "${'x'.repeat(2 << 20)}"}`]), 'file', 1 << 20));
  })().catch((thrown: unknown) => thrown);
  assert.equal((mib as Error).message, 'this record is longer than 1 MiB, the most one record may be');
});

test('the import reports a record over the limit as FILE:LINE and stores nothing', async () => {
  let rolledBack = false;
  const store = {
    capabilities: { writesOnMainThread: false, embedded: false },
    records: {
      beginImport: async () => ({
        // The valid record before the one over the limit is put, then rolled back with it.
        put: async () => {},
        rollback: async () => {
          rolledBack = true;
        },
      }),
    },
    settings: {
      databaseKind: { get: async () => 'plain' },
      demoClient: { get: async () => undefined },
    },
  } as unknown as Store;
  const order = JSON.stringify(purchaseOrderFixture(1, { modifiedAt: Date.UTC(2024, 4, 1) }));
  const result = await importFiles(store, {
    locationId: 'L1',
    purchaseOrders: {
      path: 'po.ndjson',
      input: Readable.from([`${order}\n{"id": "${'x'.repeat(5000)}"}\n`]),
    },
    maxRecordBytes: 4096,
  });
  assert.equal(result.committed, false);
  assert.ok(rolledBack);
  assert.deepEqual(result.problems.map(formatProblem), [
    'po.ndjson:2 (file): this record is longer than 4096 bytes, the most one record may be',
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
