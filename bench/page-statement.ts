import Database from 'better-sqlite3';
import { PAGE_HEADROOM, pageSql, searchSql } from '../src/storage/sqlite/search-sql.js';
import type { RecordSearch } from '../src/storage/store.js';
import { BENCH_LOCATION } from './dataset.js';
import {
  microbenchLog as log,
  microbenchReport,
  PAGE_SHAPES as SHAPES,
  statementBench,
} from './microbench.js';
import { machineLine, median } from './report.js';

/**
 * The SQLite page statement as served ("concatenated": the BLOB's headroom and tail concatenated to the
 * aggregate) against its earlier form ("wrapped": headroom and tail yielded as constant rows by a UNION ALL around
 * the search), on the bench store, alternating in rounds in one process. Only the statement runs (no JS beyond
 * better-sqlite3's call), and both must return the same bytes.
 *
 *   node --import tsx bench/page-statement.ts [--runs 300] [--rounds 9] [--out DIR] [--scale 1] [--cache DIR]
 */
const { values, runs, rounds, path, time } = await statementBench({ runs: 300, rounds: 9 });

const db = new Database(path, { readonly: true });
// The server's page cache size (sqlite-store.ts), so both forms read warm pages.
db.pragma('cache_size = -65536');

/** The statement before: the search wrapped in a UNION ALL of a headroom row, its rows and a closing row. */
const wrappedSql = (table: string, query: RecordSearch) => {
  const { sql, params } = searchSql(table, { ...query, limit: query.limit + 1 });
  return {
    sql:
      `SELECT count(id), group_concat(modifiedAt || ' ' || id, ' '), ` +
      `group_concat(iif(id IS NULL, NULL, octet_length(json)), ' '), CAST(group_concat(json, ',') AS BLOB) ` +
      `FROM (SELECT NULL AS modifiedAt, NULL AS id, printf('%${PAGE_HEADROOM}s', '') AS json ` +
      `UNION ALL SELECT * FROM (${sql}) UNION ALL SELECT NULL, NULL, ' ')`,
    params,
  };
};

const rows: string[] = [];
for (const shape of SHAPES) {
  const { binding: _binding, ...filter } = shape.kind.parseFilter(shape.body);
  const query: RecordSearch = { locationId: BENCH_LOCATION, ...filter, limit: 100 };
  const forms = {
    wrapped: wrappedSql(shape.kind.table, query),
    concatenated: pageSql(shape.kind.table, query),
  };
  const statements = {
    wrapped: db.prepare(forms.wrapped.sql).raw(),
    concatenated: db.prepare(forms.concatenated.sql).raw(),
  };
  const answers = (['wrapped', 'concatenated'] as const).map((form) =>
    JSON.stringify(statements[form].get(...forms[form].params), (_key, value) =>
      Buffer.isBuffer(value) ? value.toString('base64') : value,
    ),
  );
  if (answers[0] !== answers[1]) throw new Error(`${shape.label}: the two forms answer differently`);
  const bytes = (
    statements.concatenated.get(...forms.concatenated.params) as [number, string, string, Buffer]
  )[3].length;
  time(statements.wrapped, forms.wrapped.params);
  time(statements.concatenated, forms.concatenated.params);
  const results = { wrapped: [] as number[], concatenated: [] as number[] };
  for (let round = 0; round < rounds; round++)
    for (const form of round % 2 === 0
      ? (['wrapped', 'concatenated'] as const)
      : (['concatenated', 'wrapped'] as const))
      results[form].push(time(statements[form], forms[form].params));
  const paired = results.concatenated.map((us, i) => us / results.wrapped[i]! - 1);
  const row =
    `| ${shape.label} | ${bytes.toLocaleString('en')} | ${median(results.wrapped).toFixed(0)} | ` +
    `${median(results.concatenated).toFixed(0)} | ${(100 * median(paired)).toFixed(1)}% | ` +
    `${(100 * Math.min(...paired)).toFixed(1)}% to ${(100 * Math.max(...paired)).toFixed(1)}% |`;
  log(row);
  rows.push(row);
}
db.close();

const report = [
  '# The SQLite page statement: headroom concatenated, or wrapped around the rows',
  '',
  machineLine(),
  '',
  `Command: \`node --import tsx bench/page-statement.ts ${process.argv.slice(2).join(' ')}\``,
  '',
  `${new Date().toISOString()} · in process, the SQLite bench store (scale ${values.scale}), ${runs} statements a run, ${rounds} runs of each form alternating after a warm-up of each; medians over the runs, and the change paired by round (its median and range). Both forms return identical bytes (checked).`,
  '',
  '| page | BLOB bytes | wrapped µs | concatenated µs | change (median) | change (range) |',
  '|---|---:|---:|---:|---:|---|',
  ...rows,
  '',
].join('\n');
microbenchReport(values.out, 'page-statement.md', report);
