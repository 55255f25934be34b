import type { StoredPage, StoredRow } from './store.js';

/** A page from the rows of a search asked for one row more than the page holds (that row tells whether more follow). */
export const pageOfRows = (rows: readonly StoredRow[], limit: number): StoredPage => {
  const count = Math.min(rows.length, limit);
  const last = count === 0 ? undefined : rows[count - 1]!;
  return {
    chunks: rows.slice(0, count).map((row) => row.json),
    count,
    last: last === undefined ? undefined : { modifiedAt: last.modifiedAt, id: last.id },
    more: rows.length > limit,
  };
};
