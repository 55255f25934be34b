import {
  RECORD_KINDS,
  type RecordKind,
  type RecordKindName,
  type RecordRow,
  recordKind,
} from '../records/kinds.js';
import { mayHoldNul, NUL_MESSAGE, nulFieldOf } from '../shared/nul-field.js';
import { createValidator, type Validator } from '../shared/validator.js';
import { lineOfField } from './record-stream.js';

/** Record texts as split from a file, with the line each starts on. */
export interface RawBatch {
  /** A kind's name: batches cross to the worker thread, descriptors cannot. */
  kind: RecordKindName;
  texts: string[];
  lines: number[];
  /** The index in its file (0-based) of the batch's first record. */
  first: number;
}

export interface BatchProblem {
  line: number;
  /** The record's index in its file (0-based), when the problem is one record's. */
  record?: number;
  fieldName: string;
  message: string;
}

/** Which kind the batch's records are: to tell a file of another kind, or one mixing kinds. */
export interface KindTally {
  /** Records valid as the batch's kind. */
  own: number;
  /** Of the rest, those that look like another kind's (see looksLike): how many, and the line of the first. */
  others: Partial<Record<RecordKindName, { count: number; line: number }>>;
}

export interface ConvertedBatch {
  /** Empty once the batch had a problem: a run with problems stores nothing, so later records are only checked. */
  records: RecordRow[];
  problems: BatchProblem[];
  tally: KindTally;
}

const validators = new Map<RecordKindName, Validator<unknown>>();

const validatorOf = (name: RecordKindName): Validator<unknown> => {
  let validator = validators.get(name);
  if (validator === undefined) {
    validator = createValidator<unknown>(recordKind(name).schema);
    validators.set(name, validator);
  }
  return validator;
};

/** Parses and validates each record of the batch and turns the valid ones into rows to store. */
export const convertBatch = ({ kind, texts, lines, first }: RawBatch): ConvertedBatch => {
  const validator = validatorOf(kind);
  const toRow = recordKind(kind).toRow;
  const records: RecordRow[] = [];
  const problems: BatchProblem[] = [];
  const tally: KindTally = { own: 0, others: {} };
  for (let i = 0; i < texts.length; i++) {
    const line = lines[i]!;
    let value: unknown;
    try {
      value = JSON.parse(texts[i]!);
    } catch (error) {
      problems.push({
        line,
        record: first + i,
        fieldName: '(record)',
        message: `is not valid JSON: ${(error as Error).message}`,
      });
      continue;
    }
    const nulField = mayHoldNul(texts[i]!) ? nulFieldOf(value) : undefined;
    if (nulField !== undefined) {
      problems.push({
        line: lineOfField(texts[i]!, line, nulField),
        record: first + i,
        fieldName: nulField,
        message: NUL_MESSAGE,
      });
      continue;
    }
    const found = validator.problems(value);
    if (found.length > 0 && isPage(value)) {
      problems.push({
        line,
        record: first + i,
        fieldName: '(record)',
        message: `is a search page (currentPageToken, nextPageToken, data), not a ${recordKind(kind).label}: give the records in its data array (jq -c '.data[]' turns pages into NDJSON)`,
      });
      continue;
    }
    for (const problem of found)
      problems.push({ line: lineOfField(texts[i]!, line, problem.fieldName), record: first + i, ...problem });
    if (found.length === 0) tally.own++;
    else {
      // Only a record with problems is looked at again, so a valid file pays nothing for this.
      const other = looksLike(value, kind);
      if (other !== undefined) {
        const seen = tally.others[other.name];
        if (seen === undefined) tally.others[other.name] = { count: 1, line };
        else seen.count++;
      }
    }
    if (problems.length === 0) records.push(toRow(value));
  }
  return { records: problems.length === 0 ? records : [], problems, tally };
};

/**
 * A search answer saved as it came (`curl … > po.json`): its fields alone would be a dozen "is required" problems
 * that never say the records are one level down.
 */
const isPage = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as { data?: unknown }).data) &&
  (Object.hasOwn(value, 'nextPageToken') || Object.hasOwn(value, 'currentPageToken'));

/** The record's top-level fields that `kind` has. */
const fieldsOf = (kind: RecordKind, fields: readonly string[]): number =>
  fields.filter((field) => Object.hasOwn(kind.schema['properties'] as object, field)).length;

/**
 * The kind a record that is not valid as `given`'s looks like: it validates as that kind, or it has that kind's id
 * field and not its own and more of that kind's fields. A file given as the wrong kind (purchase orders given as
 * inventory history) is otherwise only dozens of field problems that never say so.
 */
const looksLike = (value: unknown, given: RecordKindName): RecordKind | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const own = recordKind(given);
  const fields = Object.keys(value);
  const others: RecordKind[] = RECORD_KINDS.filter((kind) => kind.name !== given);
  return (
    others.find((kind) => validatorOf(kind.name).problems(value).length === 0) ??
    others.find(
      (kind) =>
        Object.hasOwn(value, kind.idField) &&
        !Object.hasOwn(value, own.idField) &&
        fieldsOf(kind, fields) > fieldsOf(own, fields),
    )
  );
};

/** What the records of a file given as one kind say about it, told once before its problems. */
export type StrayKind =
  /** None of its records is of the given kind, and most look like this one's. */
  | { kind: RecordKind; mixed: false }
  /** Records of this kind are mixed in with the given kind's, the first at `line`. */
  | { kind: RecordKind; mixed: true; line: number };

/** Adds a batch's tally to the file's (the lines of the first of each kind stay the file's first). */
export const addTally = (file: KindTally, batch: KindTally): void => {
  file.own += batch.own;
  for (const kind of RECORD_KINDS) {
    const seen = batch.others[kind.name];
    if (seen === undefined) continue;
    const before = file.others[kind.name];
    file.others[kind.name] =
      before === undefined ? { ...seen } : { ...before, count: before.count + seen.count };
  }
};

/**
 * Judges a file by its first `judged` records, as tallied: judging them all, not the first alone, sees past a first
 * record that is malformed and tells a file of another kind from one that mixes two kinds. A tally is a count per
 * kind, so memory stays bounded however long the file.
 */
export const strayKind = (tally: KindTally, judged: number): StrayKind | undefined => {
  let likeliest: { kind: RecordKind; count: number; line: number } | undefined;
  for (const kind of RECORD_KINDS) {
    const seen = tally.others[kind.name];
    if (seen !== undefined && seen.count > (likeliest?.count ?? 0)) likeliest = { kind, ...seen };
  }
  if (likeliest === undefined) return undefined;
  if (tally.own > 0) return { kind: likeliest.kind, mixed: true, line: likeliest.line };
  // A record or two that look like another kind among lines of no kind at all make no file of that kind.
  return likeliest.count * 2 >= judged ? { kind: likeliest.kind, mixed: false } : undefined;
};
