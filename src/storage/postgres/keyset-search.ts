import type pg from 'pg';
import type { Condition } from '../../records/kinds.js';
import type { Cursor } from '../store.js';

export interface KeysetSearch {
  table: string;
  locationId: string;
  modifiedFrom?: number | undefined;
  modifiedBefore?: number | undefined;
  after?: Cursor | undefined;
  /** Conditions on indexed columns: `column = ANY(values)` (none when empty), or a boolean column's value. */
  where?: readonly Condition[];
  limit: number;
}

/**
 * One keyset page as a named (prepared) statement. Each combination of present clauses gets its own SQL text and
 * statement name (a bounded set per table), so every shape keeps a plan that seeks the
 * (location_id, modified_at, id) index instead of one generic plan full of `$n IS NULL OR …`.
 */
export const keysetSearch = (query: KeysetSearch): pg.QueryConfig => {
  const values: unknown[] = [query.locationId];
  const where = ['location_id = $1'];
  let shape = '';
  const add = (flag: boolean, clause: (next: number) => string, ...params: unknown[]): void => {
    shape += flag ? '1' : '0';
    if (!flag) return;
    where.push(clause(values.length + 1));
    values.push(...params);
  };
  add(query.modifiedFrom !== undefined, (n) => `modified_at >= $${n}`, query.modifiedFrom);
  add(query.modifiedBefore !== undefined, (n) => `modified_at < $${n}`, query.modifiedBefore);
  add(
    query.after !== undefined,
    (n) => `(modified_at, id) > ($${n}, $${n + 1})`,
    query.after?.modifiedAt,
    query.after?.id,
  );
  for (const condition of query.where ?? []) {
    if (condition.op === 'anyOf') {
      add(condition.anyOf.length > 0, (n) => `${condition.column} = ANY($${n}::text[])`, condition.anyOf);
    } else {
      // A literal predicate (no parameter), so the planner can use partial indexes (`NOT archived`).
      shape += condition.equals ? 't' : 'f';
      where.push(condition.equals ? condition.column : `NOT ${condition.column}`);
    }
  }
  values.push(query.limit);
  return {
    name: `${query.table}_search_${shape}`,
    text:
      `SELECT modified_at AS "modifiedAt", id, json FROM ${query.table} WHERE ${where.join(' AND ')} ` +
      `ORDER BY modified_at, id LIMIT $${values.length}`,
    values,
  };
};
