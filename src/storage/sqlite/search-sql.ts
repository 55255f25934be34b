import { type Equality, equalityBranches } from '../../records/kinds.js';
import { oneLowerBound } from '../page.js';
import type { RecordSearch } from '../store.js';

/**
 * The index a branch of a search reads, by the naming the migrations follow: `<table>[_<text column>…][_live]_page`
 * on (location_id, those columns, modified_at, id), `_live` being partial on the kind's boolean flag being false
 * (purchase orders: `archived = 0`, the default search).
 */
export const pageIndex = (table: string, branch: readonly Equality[]): string => {
  const columns = branch.filter((equality) => typeof equality.value === 'string').map((e) => `_${e.column}`);
  const live = branch.some((equality) => equality.value === false) ? '_live' : '';
  return `${table}${columns.join('')}${live}_page`;
};

export interface SearchSql {
  sql: string;
  params: unknown[];
}

/**
 * One page of a search as SQL: one SELECT per equality branch, each pinned to its index (INDEXED BY, so statistics
 * from `PRAGMA optimize` can never turn a seek into a scan of the location; SQLite refuses the statement rather than
 * run it without the index), merged by a UNION ALL in keyset order. SQLite runs the arms as co-routines and merges
 * them (MERGE (UNION ALL)), stopping at the LIMIT: no sort, no row read past the page.
 */
export const searchSql = (
  table: string,
  search: RecordSearch,
  select: 'rows' | 'keys' = 'rows',
): SearchSql => {
  const query = oneLowerBound(search);
  // Keys only: read from the index alone (it holds modified_at and id), never from the table.
  const columns =
    select === 'rows' ? 'modified_at AS modifiedAt, id, body AS json' : 'modified_at AS modifiedAt, id';
  const params: unknown[] = [];
  const arms = equalityBranches(query.where).map((branch) => {
    let sql = `SELECT ${columns} FROM ${table} INDEXED BY ${pageIndex(table, branch)} WHERE location_id = ?`;
    params.push(query.locationId);
    for (const equality of branch) {
      if (typeof equality.value === 'boolean') {
        // A literal, so the partial index applies.
        sql += ` AND ${equality.column} = ${equality.value ? 1 : 0}`;
      } else {
        sql += ` AND ${equality.column} = ?`;
        params.push(equality.value);
      }
    }
    if (query.modifiedFrom !== undefined) {
      sql += ' AND modified_at >= ?';
      params.push(query.modifiedFrom);
    }
    if (query.modifiedBefore !== undefined) {
      sql += ' AND modified_at < ?';
      params.push(query.modifiedBefore);
    }
    if (query.after !== undefined) {
      sql += ' AND (modified_at, id) > (?, ?)';
      params.push(query.after.modifiedAt, query.after.id);
    }
    return sql;
  });
  params.push(query.limit);
  const order = arms.length === 1 ? 'modified_at, id' : 'modifiedAt, id';
  return { sql: `${arms.join(' UNION ALL ')} ORDER BY ${order} LIMIT ?`, params };
};

/**
 * Free bytes the page BLOB holds before its records, for the page envelope's head (`{"currentPageToken":…,
 * "data":[`, two page tokens and some 50 bytes): a head that does not fit is copied as before.
 */
export const PAGE_HEADROOM = 511;
/** The BLOB's closing `, ` (the last arm's separator and its space): room for `]}` when no row follows the page. */
export const PAGE_TAIL = 2;

/**
 * A page in one statement, over the page's rows and one more (that row says whether more follow): how many rows,
 * their keyset positions (`modifiedAt id` pairs, space-separated), each body's length in bytes, and the bodies
 * as one BLOB, their JSON joined with commas, in keyset order (SQLite aggregates a LIMITed subquery as it yields
 * its rows). One seek, and one buffer copied out of SQLite instead of a string per record that V8 decodes from
 * UTF-8 and the response encodes back (twice the work, and far more for non-ASCII text, which makes two-byte
 * strings). One statement rather than a keys query and a bodies query: the seek and the merge are done once.
 *
 * The BLOB starts with PAGE_HEADROOM spaces and its comma, and ends with a comma and a space: the reader writes
 * the page envelope into those (and over the extra row), so the page is served from the BLOB itself, not copied
 * into a second buffer of its size (by `--trace-gc`, each such buffer pressed V8 into a scavenge). The headroom
 * and tail are concatenated to the aggregate, not yielded as rows around the search: a wrapping UNION ALL passes
 * every row through one more co-routine, which cost more than copying the joined bodies (bench/page-statement.ts).
 */
export const pageSql = (table: string, query: RecordSearch): SearchSql => {
  const { sql, params } = searchSql(table, { ...query, limit: query.limit + 1 });
  return {
    sql:
      `SELECT count(*), group_concat(modifiedAt || ' ' || id, ' '), group_concat(octet_length(json), ' '), ` +
      `CAST(printf('%${PAGE_HEADROOM}s,', '') || group_concat(json, ',') || ', ' AS BLOB) FROM (${sql})`,
    params,
  };
};
