import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pageBody } from '../../src/retail/record-reader.js';

const records = ['{"id":"a","name":"Crème"}', '{"id":"b"}'].join(',');
const expected = `{"currentPageToken":"cur","nextPageToken":"nxt","data":[${records}]}`;

/** A store's BLOB: `before` free bytes, the records, `after` free bytes; the chunk is the records' view of it. */
const framed = (before: number, after: number) => {
  const bytes = Buffer.from(records);
  const blob = Buffer.alloc(before + bytes.length + after, 0x20);
  bytes.copy(blob, before);
  return { blob, chunk: blob.subarray(before, before + bytes.length), room: { before, after } };
};

describe('pageBody', () => {
  test('writes the envelope into the room around the one chunk: the page is the chunk’s own buffer', () => {
    const { blob, chunk, room } = framed(200, 5);
    const body = pageBody('cur', 'nxt', [chunk], room);
    assert.equal(Buffer.from(body).toString(), expected);
    assert.equal(body.buffer, blob.buffer);
  });

  test('copies when the head does not fit before the chunk, or the close after it', () => {
    for (const [before, after] of [
      [10, 5],
      [200, 1],
    ] as const) {
      const { blob, chunk, room } = framed(before, after);
      const body = pageBody('cur', 'nxt', [chunk], room);
      assert.equal(Buffer.from(body).toString(), expected);
      assert.notEqual(body.buffer, blob.buffer);
      assert.equal(chunk.toString(), records, 'the store’s buffer is left as it was');
    }
  });

  test('joins several chunks, strings and bytes, with commas', () => {
    const [first, second] = records.split(/,(?=\{)/) as [string, string];
    const body = pageBody('cur', 'nxt', [first, Buffer.from(second)]);
    assert.equal(Buffer.from(body).toString(), expected);
  });

  test('an empty page', () => {
    assert.equal(
      Buffer.from(pageBody('', '', [])).toString(),
      '{"currentPageToken":"","nextPageToken":"","data":[]}',
    );
  });
});
