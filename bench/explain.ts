import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, type RecordKind } from '../src/records/kinds.js';
import { keysetSearch } from '../src/storage/postgres/keyset-search.js';
import { pageSql, searchSql } from '../src/storage/sqlite/search-sql.js';
import type { RecordSearch } from '../src/storage/store.js';
import { BENCH_LOCATION } from './dataset.js';
import { machineLine } from './report.js';
import { DATABASE_URL, openSpec, type StoreSpec } from './stores.js';

/**
 * `npm run bench -- --explain`: the plan of every search shape on the bench store (scale 1: ~100,000 orders and
 * ~1,150,000 inventory entries in one location), written to docs/query-plans.md. PostgreSQL: EXPLAIN (ANALYZE,
 * BUFFERS) of the very statement Larder prepares; SQLite: EXPLAIN QUERY PLAN and the time of the page read through
 * the store (median of 21 after 3 warm-up reads, in process), since SQLite runs on the event loop.
 */

const APRIL = { startDate: '2025-04-01', endDate: '2025-04-30' };
const SHAPES: { kind: RecordKind; title: string; body: object }[] = [
  { kind: PURCHASE_ORDERS, title: 'default (archived left out)', body: {} },
  { kind: PURCHASE_ORDERS, title: 'includeArchived', body: { includeArchived: true } },
  { kind: PURCHASE_ORDERS, title: 'one status', body: { purchaseOrderStatuses: ['ORDERED'] } },
  {
    kind: PURCHASE_ORDERS,
    title: 'one status, includeArchived',
    body: { purchaseOrderStatuses: ['RECEIVED'], includeArchived: true },
  },
  {
    kind: PURCHASE_ORDERS,
    title: 'three statuses, date range',
    body: { purchaseOrderStatuses: ['DRAFT', 'ORDERED', 'RECEIVED'], updatedDateRange: APRIL },
  },
  {
    kind: PURCHASE_ORDERS,
    title: 'date range, includeArchived',
    body: { includeArchived: true, updatedDateRange: APRIL },
  },
  { kind: INVENTORY_HISTORY, title: 'no filter', body: {} },
  { kind: INVENTORY_HISTORY, title: 'one type', body: { adjustmentType: ['WASTED'] } },
  {
    kind: INVENTORY_HISTORY,
    title: 'two types, date range',
    body: { adjustmentType: ['RECEIVE', 'WASTED'], updatedDateRange: APRIL },
  },
  { kind: INVENTORY_HISTORY, title: 'date range', body: { updatedDateRange: { startDate: '2025-04-01' } } },
];

/** The shape's query on its first page and on the page that starts halfway through its matches. */
const queries = (shape: (typeof SHAPES)[number], halfway: RecordSearch['after']) => {
  const { binding: _binding, ...filter } = shape.kind.parseFilter(shape.body);
  const first: RecordSearch = { locationId: BENCH_LOCATION, ...filter, limit: 101 };
  return halfway === undefined ? [first] : [first, { ...first, after: halfway }];
};

export const writeQueryPlans = async (
  specs: readonly StoreSpec[],
  out: string,
  log: (line: string) => void,
) => {
  const sections: string[] = [
    '# Query plans of every search shape',
    '',
    `Written by \`npm run bench -- --explain\` (bench/explain.ts) on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, ` +
      'on the bench store: one demo-generator location of ~100,000 purchase orders and ~1,150,000 inventory entries. ' +
      'Each shape is shown on its first page and on a page that starts halfway through its matches (the keyset ' +
      'cursor Larder decodes from a page token), with a limit of 101 (a page of 100 and the row that says more ' +
      'follow). A set of statuses or types is one index seek per value, merged in keyset order (MERGE (UNION ALL) on ' +
      'SQLite, Merge Append on PostgreSQL): no shape scans the location or sorts its matches. ' +
      'On SQLite the statement shown is the one a page runs: the search under the aggregate that joins its bodies ' +
      "(`SCAN (subquery-N)` reads the search's rows as they come, a co-routine, not a table). " +
      '`test/storage/search-plans.test.ts` checks the same on every filter combination.',
    '',
  ];
  for (const spec of specs) {
    log(`query plans on ${spec.backend} …`);
    const store = await openSpec(spec);
    sections.push(`## ${spec.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`, '');
    const client =
      spec.backend === 'postgres'
        ? new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${spec.schema}` })
        : undefined;
    await client?.connect();
    const db = spec.backend === 'sqlite' ? new Database(spec.path, { readonly: true }) : undefined;
    try {
      for (const shape of SHAPES) {
        const { binding: _binding, ...filter } = shape.kind.parseFilter(shape.body);
        // The cursor halfway through the shape's matches, from their keys alone (never the bodies).
        const all: RecordSearch = { locationId: BENCH_LOCATION, ...filter, limit: 10_000_000 };
        let keys: { modifiedAt: number | string; id: string }[];
        if (client !== undefined) {
          const { text, values } = keysetSearch({ table: shape.kind.table, ...all });
          const keysOnly = text.replaceAll(', id, json FROM', ', id FROM');
          keys = (await client.query<{ modifiedAt: string; id: string }>(keysOnly, values ?? [])).rows;
        } else {
          const { sql, params } = searchSql(shape.kind.table, all, 'keys');
          keys = db!.prepare<unknown[], { modifiedAt: number; id: string }>(sql).all(...params);
        }
        const middle = keys[Math.floor(keys.length / 2)];
        const halfway =
          middle === undefined ? undefined : { modifiedAt: Number(middle.modifiedAt), id: middle.id };
        for (const [i, query] of queries(shape, halfway).entries()) {
          const title = `${shape.kind.name}: ${shape.title}, ${i === 0 ? 'first page' : `page from the middle of ${keys.length.toLocaleString('en-US')} matches`}`;
          sections.push(`### ${title}`, '', `Body: \`${JSON.stringify(shape.body)}\``, '', '```');
          if (client !== undefined) {
            const { text, values } = keysetSearch({ table: shape.kind.table, ...query });
            const plan = await client.query<{ 'QUERY PLAN': string }>(
              `EXPLAIN (ANALYZE, BUFFERS) ${text}`,
              values ?? [],
            );
            sections.push(text, '', ...plan.rows.map((row) => row['QUERY PLAN']));
          } else if (db !== undefined) {
            // The statement a page runs: the search under the aggregate that joins its bodies.
            const { sql, params } = pageSql(shape.kind.table, { ...query, limit: query.limit - 1 });
            const plan = db
              .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
              .all(...params);
            const times: number[] = [];
            // Three reads first bring the pages into SQLite's cache, as on a server that has been answering.
            for (let run = 0; run < 24; run++) {
              const started = performance.now();
              await store.records.page(shape.kind, { ...query, limit: 100 });
              if (run >= 3) times.push(performance.now() - started);
            }
            times.sort((a, b) => a - b);
            sections.push(
              sql,
              '',
              ...plan.map((row) => row.detail),
              '',
              `page read through the store (after 3 warm-up reads): median ${times[10]!.toFixed(2)} ms, worst of 21 ${times[20]!.toFixed(2)} ms`,
            );
          }
          sections.push('```', '');
        }
      }
    } finally {
      await client?.end();
      db?.close();
      await store.close();
    }
  }
  writeFileSync(out, sections.join('\n'));
};
