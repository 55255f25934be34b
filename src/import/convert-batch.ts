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

export interface ConvertedBatch {
  /** Empty once the batch had a problem: a run with problems stores nothing, so later records are only checked. */
  records: RecordRow[];
  problems: BatchProblem[];
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
    for (const problem of found)
      problems.push({ line: lineOfField(texts[i]!, line, problem.fieldName), record: first + i, ...problem });
    if (problems.length === 0) records.push(toRow(value));
  }
  return { records: problems.length === 0 ? records : [], problems };
};

/** The record's top-level fields that `kind` has. */
const fieldsOf = (kind: RecordKind, fields: readonly string[]): number =>
  fields.filter((field) => Object.hasOwn(kind.schema['properties'] as object, field)).length;

/**
 * The kind a record that is not `given`'s looks like, told from its text: it validates as that kind, or it has
 * that kind's id field and not its own and more of that kind's fields. A file given as the wrong kind (purchase
 * orders given as inventory history) is otherwise only dozens of field problems that never say so.
 */
export const kindOfStray = (text: string, given: RecordKindName): RecordKind | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (validatorOf(given).problems(value).length === 0) return undefined;
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
