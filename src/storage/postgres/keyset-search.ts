import type pg from 'pg';
import type { PurchaseOrderSearch } from '../store.js';

type Bounds = Pick<PurchaseOrderSearch, 'locationId' | 'modifiedFrom' | 'modifiedBefore' | 'after' | 'limit'>;

export interface KeysetSearch {
  table: 'purchase_orders' | 'inventory_entries';
  bounds: Bounds;
  /** `column = ANY(values)`; empty values: no filter. */
  filter?: { column: 'status' | 'adjustment_type'; values: readonly string[] };
  excludeArchived?: boolean;
}

/**
 * One keyset page as a named (prepared) statement. Each combination of present clauses gets its own SQL text and
 * statement name, at most 32 per table, so every shape keeps a plan that seeks the
 * (location_id, modified_at, id) index instead of one generic plan full of `$n IS NULL OR …`.
 */
export const keysetSearch = ({ table, bounds, filter, excludeArchived }: KeysetSearch): pg.QueryConfig => {
  const values: unknown[] = [bounds.locationId];
  const where = ['location_id = $1'];
  let shape = '';
  const add = (flag: boolean, clause: (next: number) => string, ...params: unknown[]): void => {
    shape += flag ? '1' : '0';
    if (!flag) return;
    where.push(clause(values.length + 1));
    values.push(...params);
  };
  add(bounds.modifiedFrom !== undefined, (n) => `modified_at >= $${n}`, bounds.modifiedFrom);
  add(bounds.modifiedBefore !== undefined, (n) => `modified_at < $${n}`, bounds.modifiedBefore);
  add(
    bounds.after !== undefined,
    (n) => `(modified_at, id) > ($${n}, $${n + 1})`,
    bounds.after?.modifiedAt,
    bounds.after?.id,
  );
  const filterValues = filter?.values ?? [];
  add(filterValues.length > 0, (n) => `${filter?.column} = ANY($${n}::text[])`, filterValues);
  add(excludeArchived === true, () => 'NOT archived');
  values.push(bounds.limit);
  return {
    name: `${table}_search_${shape}`,
    text:
      `SELECT modified_at AS "modifiedAt", id, json FROM ${table} WHERE ${where.join(' AND ')} ` +
      `ORDER BY modified_at, id LIMIT $${values.length}`,
    values,
  };
};
