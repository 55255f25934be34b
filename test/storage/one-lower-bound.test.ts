import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { oneLowerBound } from '../../src/storage/page.js';
import type { Cursor } from '../../src/storage/store.js';

/** What the SQL of both backends asks of a row, for the bounds present. */
const matches = (row: Cursor, query: { modifiedFrom?: number; after?: Cursor }): boolean =>
  (query.modifiedFrom === undefined || row.modifiedAt >= query.modifiedFrom) &&
  (query.after === undefined ||
    row.modifiedAt > query.after.modifiedAt ||
    (row.modifiedAt === query.after.modifiedAt && row.id > query.after.id));

const position = fc.record({
  modifiedAt: fc.integer({ min: 0, max: 5 }),
  id: fc.constantFrom('a', 'b', 'c'),
});

test('keeping only the later lower bound selects exactly the same rows', () => {
  fc.assert(
    fc.property(
      fc.array(position, { maxLength: 20 }),
      fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      fc.option(position, { nil: undefined }),
      (rows, modifiedFrom, after) => {
        const query = {
          ...(modifiedFrom === undefined ? {} : { modifiedFrom }),
          ...(after === undefined ? {} : { after }),
        };
        const narrowed = oneLowerBound(query);
        assert.ok(narrowed.modifiedFrom === undefined || narrowed.after === undefined, 'one bound at most');
        for (const row of rows) assert.equal(matches(row, narrowed), matches(row, query));
      },
    ),
  );
});
