import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  equalityBranches,
  INVENTORY_HISTORY,
  PURCHASE_ORDERS,
  type RecordKind,
} from '../../src/records/kinds.js';
import { ADJUSTMENT_TYPES, PURCHASE_ORDER_STATUSES } from '../../src/records/schemas.js';
import { keysetSearch } from '../../src/storage/postgres/keyset-search.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { pageSql, searchSql } from '../../src/storage/sqlite/search-sql.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { RecordSearch } from '../../src/storage/store.js';
import { adminQuery, freshSchemaName, postgresUnreachable, postgresUrl } from './backends.js';

/**
 * Every filter combination the interface allows has an index path on both backends: the plan of each search shape
 * seeks an index that leads with location_id and every filtered column, and neither scans the location nor sorts
 * its matches. A shape that loses its index (a dropped migration, a rewritten query) fails here, not in a bench.
 */

interface Shape {
  kind: RecordKind;
  title: string;
  query: RecordSearch;
}

const dateRanges = [
  ['no dates', undefined],
  ['from', { startDate: '2025-01-01' }],
  ['from and to', { startDate: '2025-01-01', endDate: '2025-02-01' }],
] as const;
const cursors = [
  ['first page', undefined],
  [
    'next page',
    { modifiedAt: Date.parse('2025-01-05T00:00:00Z'), id: '00000000-0000-4000-8000-000000000000' },
  ],
] as const;

const shapes = (
  kind: RecordKind,
  field: string,
  values: readonly string[],
  extra: readonly object[],
): Shape[] => {
  const sets = [[], values.slice(0, 1), values.slice(1, 3), [...values]];
  const result: Shape[] = [];
  for (const set of sets)
    for (const more of extra)
      for (const [dateTitle, range] of dateRanges)
        for (const [cursorTitle, cursor] of cursors) {
          const body = { [field]: set, updatedDateRange: range ?? null, ...more };
          const { binding: _binding, ...filter } = kind.parseFilter(body);
          result.push({
            kind,
            title: `${kind.name} ${JSON.stringify({ [field]: set.length, ...more })} ${dateTitle}, ${cursorTitle}`,
            query: {
              locationId: 'loc-1',
              ...filter,
              ...(cursor === undefined ? {} : { after: cursor }),
              limit: 100,
            },
          });
        }
  return result;
};

const SHAPES = [
  ...shapes(PURCHASE_ORDERS, 'purchaseOrderStatuses', PURCHASE_ORDER_STATUSES, [
    {},
    { includeArchived: true },
  ]),
  ...shapes(INVENTORY_HISTORY, 'adjustmentType', ADJUSTMENT_TYPES, [{}]),
];

/** The columns each branch of a shape must seek by equality (booleans are partial indexes, not key columns). */
const seekColumns = (shape: Shape): string[][] =>
  equalityBranches(shape.query.where).map((branch) =>
    branch.filter((equality) => typeof equality.value === 'string').map((equality) => equality.column),
  );

describe('search plans on SQLite', () => {
  let dir: string;
  let db: Database.Database;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-plans-'));
    const path = join(dir, 'larder.db');
    await (await createSqliteStore({ path })).close();
    db = new Database(path, { readonly: true });
  });
  after(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every shape seeks an index on location_id and every filtered column, with no scan and no sort', () => {
    // Both the search and the page statement the API runs (the same search under an aggregate).
    for (const [shape, page] of SHAPES.flatMap((candidate) => [
      [candidate, false] as const,
      [candidate, true] as const,
    ])) {
      const { sql, params } = (page ? pageSql : searchSql)(shape.kind.table, shape.query);
      const plan = db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail);
      const seeks = plan.filter((detail) => detail.startsWith(`SEARCH ${shape.kind.table} `));
      const expected = seekColumns(shape);
      assert.equal(seeks.length, expected.length, `${shape.title}: one seek per branch\n${plan.join('\n')}`);
      for (const [i, columns] of expected.entries()) {
        const constraint = ['location_id=?', ...columns.map((column) => `${column}=?`)].join(' AND ');
        assert.ok(
          seeks[i]!.includes(`(${constraint}`),
          `${shape.title}: seeks ${constraint}\n${plan.join('\n')}`,
        );
        // A later page seeks from its cursor (here after the start date), not from the start date.
        if (shape.query.after !== undefined)
          assert.ok(
            seeks[i]!.includes('(modified_at,id)>(?,?)'),
            `${shape.title}: seeks the cursor\n${plan.join('\n')}`,
          );
      }
      for (const detail of plan) {
        // The page statement's aggregate reads the search's rows as they come (a co-routine): not a table scan.
        if (page && detail.startsWith('SCAN (subquery')) continue;
        assert.ok(!detail.startsWith('SCAN '), `${shape.title}: no scan\n${plan.join('\n')}`);
        assert.ok(!detail.includes('TEMP B-TREE'), `${shape.title}: no sort\n${plan.join('\n')}`);
      }
    }
  });

  test('a shape whose index is missing is refused, never run as a scan', () => {
    db.close();
    const path = join(dir, 'larder.db');
    const writable = new Database(path);
    writable.exec('DROP INDEX purchase_orders_status_live_page');
    const { sql, params } = searchSql(PURCHASE_ORDERS.table, {
      locationId: 'loc-1',
      where: PURCHASE_ORDERS.parseFilter({ purchaseOrderStatuses: ['DRAFT'] }).where,
      limit: 100,
    });
    assert.throws(() => writable.prepare(sql).all(...params), /no such index/);
    writable.close();
    db = new Database(path, { readonly: true });
  });
});

describe('search plans on PostgreSQL', async () => {
  const unreachable = await postgresUnreachable();
  if (unreachable !== undefined) {
    test('PostgreSQL search plans', { skip: unreachable }, () => {});
    return;
  }
  const schema = freshSchemaName();
  let client: pg.Client;
  before(async () => {
    await (
      await createPostgresStore({ databaseUrl: postgresUrl, schema, poolSize: 1, migrate: true })
    ).close();
    client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`SET search_path TO ${schema}`);
    // Asks whether a path without a scan or a sort exists at all: with these off, the planner takes one if there
    // is one, whatever the (empty) tables' statistics say, and shows a Sort or Seq Scan only when there is none.
    await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off');
  });
  after(async () => {
    await client.end();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  test('every shape reads index scans in keyset order, merged, with no scan and no sort', async () => {
    for (const shape of SHAPES) {
      const { text, values } = keysetSearch({ table: shape.kind.table, ...shape.query });
      const result = await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN ${text}`, values });
      const plan = result.rows.map((row) => row['QUERY PLAN']);
      const shown = `${shape.title}\n${plan.join('\n')}`;
      const scans = plan.filter((line) => / Index (Only )?Scan using /.test(line));
      const expected = seekColumns(shape);
      assert.equal(scans.length, expected.length, `one index scan per branch: ${shown}`);
      for (const line of plan) {
        assert.ok(!/Seq Scan|Bitmap|Sort(?! Key)|Materialize/.test(line), `no scan, no sort: ${shown}`);
      }
      for (const [i, columns] of expected.entries()) {
        // The branch's index keys on its filtered columns: its Index Cond names each one.
        const cond = plan.slice(plan.indexOf(scans[i]!) + 1).find((line) => line.includes('Index Cond'));
        for (const column of ['location_id', ...columns]) {
          assert.ok(cond?.includes(`(${column} = `), `index condition on ${column}: ${shown}`);
        }
        if (shape.query.after !== undefined)
          assert.ok(cond?.includes('ROW(modified_at, id) >'), `the cursor is an index condition: ${shown}`);
      }
      if (expected.length > 1)
        assert.ok(
          plan.some((line) => line.includes('Merge Append')),
          shown,
        );
    }
  });
});
