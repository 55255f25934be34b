import type pg from 'pg';
import { type Condition, equalityBranches } from '../../records/kinds.js';
import { oneLowerBound } from '../page.js';
import type { Cursor } from '../store.js';

export interface KeysetSearch {
  table: string;
  locationId: string;
  modifiedFrom?: number | undefined;
  modifiedBefore?: number | undefined;
  after?: Cursor | undefined;
  /** Conditions on indexed columns: a text column in a set (none when empty), or a boolean column's value. */
  where?: readonly Condition[];
  limit: number;
}

/**
 * One keyset page as a named (prepared) statement. Each combination of present clauses gets its own SQL text and
 * statement name (a bounded set per table), so every shape keeps a plan that seeks an index on (location_id, the
 * filtered columns, modified_at, id) instead of one generic plan full of `$n IS NULL OR …`. A set of values becomes
 * one branch per value (equalityBranches), each ordered and limited on its own so that PostgreSQL merges their index
 * scans (Merge Append), reading each only as far as the page needs: `column = ANY(…)` would need a sort of every
 * match, and a UNION ALL without the inner ORDER BY is pulled up into a plain Append and a Sort (PostgreSQL 15).
 */
export const keysetSearch = (search: KeysetSearch): pg.QueryConfig => {
  const query = oneLowerBound(search);
  const values: unknown[] = [query.locationId];
  const common: string[] = [];
  let shape = '';
  const add = (flag: boolean, clause: (next: number) => string, ...params: unknown[]): void => {
    shape += flag ? '1' : '0';
    if (!flag) return;
    common.push(clause(values.length + 1));
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
  const where = query.where ?? [];
  for (const condition of where) {
    shape += condition.op === 'anyOf' ? `-${condition.anyOf.length}` : condition.equals ? 't' : 'f';
  }
  const arms = equalityBranches(where).map((branch) => {
    const clauses = ['location_id = $1', ...common];
    for (const equality of branch) {
      if (typeof equality.value === 'boolean') {
        // A literal predicate (no parameter), so the planner can use partial indexes (`NOT archived`).
        clauses.push(equality.value ? equality.column : `NOT ${equality.column}`);
      } else {
        values.push(equality.value);
        clauses.push(`${equality.column} = $${values.length}`);
      }
    }
    return `SELECT modified_at AS "modifiedAt", id, json FROM ${query.table} WHERE ${clauses.join(' AND ')}`;
  });
  values.push(query.limit);
  const page = `ORDER BY modified_at, id LIMIT $${values.length}`;
  return {
    name: `${query.table}_search_${shape}`,
    text:
      arms.length === 1
        ? `${arms[0]} ${page}`
        : `${arms.map((arm) => `(${arm} ${page})`).join(' UNION ALL ')} ORDER BY "modifiedAt", id LIMIT $${values.length}`,
    values,
  };
};
