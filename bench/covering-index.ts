import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { INVENTORY_HISTORY } from '../src/records/kinds.js';
import { pageSql } from '../src/storage/sqlite/search-sql.js';
import type { RecordSearch } from '../src/storage/store.js';
import { BENCH_LOCATION } from './dataset.js';
import { microbenchLog as log, microbenchReport, statementBench } from './microbench.js';
import { machineLine, median } from './report.js';
import { UNICODE_LOCATION } from './unicode.js';

/**
 * Would a covering index holding the bodies make the inventory type + date page cheaper? On a copy of the SQLite
 * bench store with `(location_id, adjustment_type, modified_at, id, body)` added, the served page statement runs
 * against the type index it uses (rowids, a table lookup per row) and against the covering one, alternating in
 * rounds in one process; both must return the same bytes. The copy is made in the OS temp directory and removed.
 *
 *   node --import tsx bench/covering-index.ts [--runs 1000] [--rounds 10] [--out DIR] [--scale 1] [--cache DIR]
 */
const { values, runs, rounds, path, time } = await statementBench({ runs: 1000, rounds: 10 });
const TYPE_INDEX = 'inventory_entries_adjustment_type_page';
const COVERING_INDEX = 'inventory_entries_adjustment_type_cover';

const dir = mkdtempSync(join(tmpdir(), 'larder-covering-'));
const copy = join(dir, 'store.db');
copyFileSync(path, copy);
const db = new Database(copy);
db.pragma('cache_size = -524288');
log('[covering-index] building the covering index on a copy of the store …');
db.exec(
  `CREATE INDEX ${COVERING_INDEX} ON inventory_entries (location_id, adjustment_type, modified_at, id, body)`,
);
const sizes = db
  .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE ? GROUP BY name ORDER BY name')
  .all('inventory_entries%') as { name: string; bytes: number }[];
// The server's page cache size (sqlite-store.ts).
db.pragma('cache_size = -65536');

const { binding: _binding, ...filter } = INVENTORY_HISTORY.parseFilter({
  adjustmentType: ['RECEIVE', 'WASTED'],
  updatedDateRange: { startDate: '2025-04-01', endDate: '2025-04-30' },
});
const rows: string[] = [];
for (const [label, locationId] of [
  ['demo generator', BENCH_LOCATION],
  ['non-ASCII', UNICODE_LOCATION],
] as const) {
  const query: RecordSearch = { locationId, ...filter, limit: 100 };
  const served = pageSql('inventory_entries', query);
  const statements = {
    rowid: db.prepare(served.sql).raw(),
    covering: db.prepare(served.sql.replaceAll(TYPE_INDEX, COVERING_INDEX)).raw(),
  };
  const blobs = (['rowid', 'covering'] as const).map(
    (form) => (statements[form].get(...served.params) as [number, string, string, Buffer])[3],
  );
  // An empty page (a small --scale can leave the filter's month without entries) has no bytes to compare.
  if (blobs[0] == null)
    throw new Error(`${label}: the page is empty on this store (--scale ${values.scale})`);
  if (!blobs[0].equals(blobs[1]!)) throw new Error(`${label}: the two indexes answer differently`);
  const results = { rowid: [] as number[], covering: [] as number[] };
  for (let round = 0; round < rounds; round++)
    for (const form of round % 2 === 0 ? (['rowid', 'covering'] as const) : (['covering', 'rowid'] as const))
      results[form].push(time(statements[form], served.params));
  const paired = results.covering.map((us, i) => us / results.rowid[i]! - 1);
  const row =
    `| ${label} | ${blobs[0]!.length.toLocaleString('en')} | ${median(results.rowid).toFixed(1)} | ` +
    `${median(results.covering).toFixed(1)} | ${(100 * median(paired)).toFixed(1)}% | ` +
    `${(100 * Math.min(...paired)).toFixed(1)}% to ${(100 * Math.max(...paired)).toFixed(1)}% |`;
  log(row);
  rows.push(row);
}
db.close();
rmSync(dir, { recursive: true, force: true });

const report = [
  '# The inventory type + date page: type index (rowids) against a covering index holding the bodies',
  '',
  machineLine(),
  '',
  `Command: \`node --import tsx bench/covering-index.ts ${process.argv.slice(2).join(' ')}\``,
  '',
  `${new Date().toISOString()} · in process, a copy of the SQLite bench store (scale ${values.scale}) with the covering index added; the served page statement (two adjustment types, one month, 100 entries), ${runs} statements a run, ${rounds} runs of each index alternating; medians over the runs, and the change paired by round (its median and range). Both indexes return identical bytes (checked).`,
  '',
  '| location | BLOB bytes | type index µs | covering index µs | change (median) | change (range) |',
  '|---|---:|---:|---:|---:|---|',
  ...rows,
  '',
  'Size on disk of the inventory table and its indexes with the covering index added:',
  '',
  '| b-tree | MB |',
  '|---|---:|',
  ...sizes.map(({ name, bytes }) => `| ${name} | ${(bytes / 2 ** 20).toFixed(0)} |`),
  '',
].join('\n');
microbenchReport(values.out, 'README.md', report);
