import Database from 'better-sqlite3';
import { PAGE_HEADROOM, pageSql, searchSql } from '../src/storage/sqlite/search-sql.js';
import type { RecordSearch } from '../src/storage/store.js';
import { BENCH_LOCATION } from './dataset.js';
import { microbenchLog as log, microbenchReport, PAGE_SHAPES, statementBench } from './microbench.js';
import { machineLine, median } from './report.js';

/**
 * Where the SQLite page statement's time goes: the statement as served against the same statement with one part
 * taken off at a time, down to reading the page's rows and nothing else, on the bench store, alternating in rounds
 * in one process. Only the statement runs (no JS beyond better-sqlite3's call). Each form's fastest run is given
 * beside its median: every form returns a new buffer of the page's size, and the GC those buffers bring lands on
 * whichever form runs when it comes.
 *
 *   node --import tsx bench/page-statement-parts.ts [--runs 100] [--rounds 41] [--out DIR] [--scale 1] [--cache DIR]
 */
const { values, runs, rounds, path, time } = await statementBench({ runs: 100, rounds: 41 });

const db = new Database(path, { readonly: true });
// The server's page cache size (sqlite-store.ts), so every form reads warm pages.
db.pragma('cache_size = -65536');

const LISTS = "group_concat(modifiedAt || ' ' || id, ' '), group_concat(octet_length(json), ' ')";
const JOINED = "CAST(group_concat(json, ',') AS BLOB)";

/** Each form, from the statement as served down to the rows alone: its label and its SELECT over the rows. */
const FORMS: { label: string; select: (served: string) => string }[] = [
  { label: 'as served', select: (served) => served },
  { label: 'no headroom or tail', select: () => `count(*), ${LISTS}, ${JOINED}` },
  {
    label: 'positions list and bodies',
    select: () => `count(*), group_concat(modifiedAt || ' ' || id, ' '), ${JOINED}`,
  },
  {
    label: 'lengths list and bodies',
    select: () => `count(*), group_concat(octet_length(json), ' '), ${JOINED}`,
  },
  // SQLite documents a bare column's row as arbitrary when the query has no min() or max(): measured, not used.
  {
    label: 'last row as bare columns, and bodies',
    select: () => `count(*), modifiedAt, id, octet_length(json), ${JOINED}`,
  },
  { label: 'bodies joined only', select: () => JOINED },
  { label: 'rows read only (their lengths summed)', select: () => 'sum(octet_length(json))' },
];

const rows: string[] = [];
for (const shape of PAGE_SHAPES) {
  const { binding: _binding, ...filter } = shape.kind.parseFilter(shape.body);
  const query: RecordSearch = { locationId: BENCH_LOCATION, ...filter, limit: 100 };
  const served = pageSql(shape.kind.table, query);
  const search = searchSql(shape.kind.table, { ...query, limit: query.limit + 1 });
  const servedSelect = served.sql.slice('SELECT '.length, served.sql.indexOf(` FROM (${search.sql})`));
  const statements = FORMS.map((form) =>
    db.prepare(`SELECT ${form.select(servedSelect)} FROM (${search.sql})`).raw(),
  );
  const asServed = statements[0]!.get(...search.params) as [number, string, string, Buffer];
  if (asServed[3].length <= PAGE_HEADROOM) throw new Error(`${shape.label}: no page`);
  for (const statement of statements) time(statement, search.params);
  const results = FORMS.map(() => [] as number[]);
  const order = FORMS.map((_form, i) => i);
  for (let round = 0; round < rounds; round++)
    for (const i of round % 2 === 0 ? order : [...order].reverse())
      results[i]!.push(time(statements[i]!, search.params));
  FORMS.forEach((form, i) => {
    const row =
      `| ${shape.label} | ${form.label} | ${Math.min(...results[i]!).toFixed(0)} | ` +
      `${median(results[i]!).toFixed(0)} |`;
    log(row);
    rows.push(row);
  });
  rows.push(`| ${shape.label} | (page bytes) | ${asServed[3].length.toLocaleString('en')} | |`);
}
db.close();

const report = [
  '# The SQLite page statement, part by part',
  '',
  machineLine(),
  '',
  `Command: \`node --import tsx bench/page-statement-parts.ts ${process.argv.slice(2).join(' ')}\``,
  '',
  `${new Date().toISOString()} · in process, the SQLite bench store (scale ${values.scale}), its demo location, ${runs} statements a run, ${rounds} runs of each form alternating after a warm-up of each. Each form is the statement as served over the same rows (the page and one more), with parts taken off: the BLOB's headroom and tail, the list of keyset positions, the list of body lengths, the bodies' join. µs per statement: the fastest run and the median run.`,
  '',
  '| page | form | fastest µs | median µs |',
  '|---|---|---:|---:|',
  ...rows,
  '',
].join('\n');
microbenchReport(values.out, 'page-statement-parts.md', report);
