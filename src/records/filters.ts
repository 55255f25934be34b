import { LarderError } from '../shared/errors.js';
import { createValidator, describeProblems, type ProblemReport } from '../shared/validator.js';

/** An indexed column of a record table, besides location_id, id and modified_at. */
export interface IndexedColumn {
  /** Column name, the same on both backends. */
  name: string;
  type: 'text' | 'boolean';
}

/** One condition on an indexed column: a text column in a set (empty: no condition), or a boolean column's value. */
export type Condition =
  | { op: 'anyOf'; column: string; anyOf: readonly string[] }
  | { op: 'equals'; column: string; equals: boolean };

/** A search body, validated and reduced to what the store filters on. */
export interface RecordFilter {
  /** Inclusive lower bound on modifiedAt (epoch ms). */
  modifiedFrom?: number;
  /** Exclusive upper bound on modifiedAt (epoch ms). */
  modifiedBefore?: number;
  /** Conditions on indexed columns, in the kind's column order. */
  where: readonly Condition[];
  /** The canonical text a page token is bound to. */
  binding: string;
}

const DAY_MS = 86_400_000;

const validationError = (report: ProblemReport) => {
  const { problems, more } = report;
  const [first] = problems;
  if (problems.length === 1 && more === 0 && first !== undefined) {
    return new LarderError('ERR_VALIDATION', {
      fieldName: first.fieldName,
      message: `${first.fieldName} ${first.message}.`,
    });
  }
  return new LarderError('ERR_VALIDATION', {
    message: `The request body has ${problems.length + more} invalid fields: ${describeProblems(report, (p) => p.fieldName, ', ')}.`,
    problems,
  });
};

/** Whole UTC days, inclusive at both ends, as a half-open epoch-ms interval. */
const dateBounds = (
  range: { startDate: string; endDate?: string | null } | null | undefined,
): { modifiedFrom?: number; modifiedBefore?: number } => {
  if (range === null || range === undefined) return {};
  const modifiedFrom = Date.parse(`${range.startDate}T00:00:00Z`);
  if (range.endDate === null || range.endDate === undefined) return { modifiedFrom };
  const modifiedBefore = Date.parse(`${range.endDate}T00:00:00Z`) + DAY_MS;
  if (modifiedBefore <= modifiedFrom) {
    throw new LarderError('ERR_DATE_RANGE', {
      fieldName: 'updatedDateRange.endDate',
      message: `updatedDateRange.endDate (${range.endDate}) is before startDate (${range.startDate}).`,
    });
  }
  return { modifiedFrom, modifiedBefore };
};

/** Deduplicated and sorted, so equivalent filters bind the same page tokens. */
const canonicalSet = (values: readonly string[] | null | undefined): string[] =>
  [...new Set(values ?? [])].sort();

/** How a search body's fields become conditions: a set of values of a text column, or a boolean flag. */
export type FilterField =
  | { field: string; column: string; kind: 'anyOf' }
  /** Absent or not `true`: the column must equal `otherwise`; `true`: no condition. */
  | { field: string; column: string; kind: 'include'; otherwise: boolean };

/**
 * Builds a search-body parser: validates against `schema`, then reads `updatedDateRange` and the `fields`.
 * The binding keeps the shape page tokens were always bound to: [set values, flag or null, from, before].
 */
export const filterParser = (
  schema: Parameters<typeof createValidator>[0],
  fields: readonly FilterField[],
): ((body: unknown) => RecordFilter) => {
  // Compiled at its first use, or before a server is ready (compileValidators): the seed and import workers load
  // the kinds but never parse a search.
  const validator = createValidator<Record<string, unknown>>(schema);
  return (body) => {
    const report = validator.report(body);
    if (report.problems.length > 0) throw validationError(report);
    const request = body as Record<string, unknown>;
    const where: Condition[] = [];
    let set: string[] = [];
    let flag: boolean | null = null;
    for (const field of fields) {
      const value = request[field.field];
      if (field.kind === 'anyOf') {
        set = canonicalSet(value as string[] | null | undefined);
        where.push({ op: 'anyOf', column: field.column, anyOf: set });
      } else {
        flag = value === true;
        if (!flag) where.push({ op: 'equals', column: field.column, equals: field.otherwise });
      }
    }
    const bounds = dateBounds(
      request['updatedDateRange'] as { startDate: string; endDate?: string | null } | null | undefined,
    );
    return {
      ...bounds,
      where,
      binding: JSON.stringify([set, flag, bounds.modifiedFrom ?? null, bounds.modifiedBefore ?? null]),
    };
  };
};

/** One column equal to one value: a text column's value, or a boolean column's. */
export interface Equality {
  column: string;
  value: string | boolean;
}

/**
 * A search's conditions as alternatives of plain equalities: every value of an `anyOf` set becomes a branch of
 * its own. Each branch seeks one index on (location_id, its columns, modified_at, id) and yields rows already in
 * keyset order, so the stores merge the branches under the page's LIMIT; one `IN (…)` over the same index would
 * return the rows grouped by value and need a sort of every match in the location. Sets are deduplicated by
 * parsing (canonicalSet), so there are at most as many branches as the column has values.
 */
export const equalityBranches = (where: readonly Condition[]): Equality[][] => {
  let branches: Equality[][] = [[]];
  for (const condition of where) {
    if (condition.op === 'equals') {
      branches = branches.map((branch) => [...branch, { column: condition.column, value: condition.equals }]);
    } else if (condition.anyOf.length > 0) {
      branches = branches.flatMap((branch) =>
        condition.anyOf.map((value) => [...branch, { column: condition.column, value }]),
      );
    }
  }
  return branches;
};
