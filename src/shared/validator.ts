import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type FieldProblem, LarderError } from './errors.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
addFormats(ajv, ['uuid', 'date-time', 'date', 'int32', 'double']);

/** Turns Ajv's `/items/0/name` into the field path users read: `items[0].name`. */
export const toFieldPath = (instancePath: string, extra?: string): string => {
  let path = '';
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  if (extra !== undefined) path += path === '' ? extra : `.${extra}`;
  return path;
};

const describe = (error: ErrorObject): FieldProblem => {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        fieldName: toFieldPath(error.instancePath, String(params['missingProperty'])),
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        fieldName: toFieldPath(error.instancePath, String(params['additionalProperty'])),
        message: 'is not a known field',
      };
    case 'enum':
      return {
        fieldName: toFieldPath(error.instancePath),
        message: `must be one of ${(params['allowedValues'] as unknown[]).join(', ')}`,
      };
    case 'format':
      return {
        fieldName: toFieldPath(error.instancePath),
        message: `must be a valid ${String(params['format'])}${formatHint(String(params['format']))}`,
      };
    default:
      return { fieldName: toFieldPath(error.instancePath), message: error.message ?? 'is not valid' };
  }
};

const formatHint = (format: string): string =>
  format === 'date'
    ? ' (YYYY-MM-DD)'
    : format === 'date-time'
      ? ' (ISO 8601 with a time zone, e.g. 2024-05-01T12:00:00Z)'
      : '';

/** Ajv reports a failed `T | null` three times (type, type null, anyOf); keep the specific one per field. */
const simplify = (errors: readonly ErrorObject[]): FieldProblem[] => {
  const byField = new Map<string, FieldProblem>();
  for (const error of errors) {
    if (
      error.keyword === 'anyOf' ||
      error.keyword === 'if' ||
      (error.keyword === 'type' && error.params['type'] === 'null')
    )
      continue;
    const problem = describe(error);
    const known = byField.get(problem.fieldName);
    if (known === undefined) byField.set(problem.fieldName, problem);
    else if (!known.message.includes(problem.message))
      known.message = `${known.message} or ${problem.message}`;
  }
  return [...byField.values()];
};

export interface Validator<T> {
  /** Returns [] when `value` is a T; otherwise one problem per offending field. */
  problems(value: unknown): FieldProblem[];
  is(value: unknown): value is T;
}

export const createValidator = <T>(schema: TSchema): Validator<T> => {
  const validate = ajv.compile<T>(schema);
  return {
    problems: (value) => (validate(value) ? [] : simplify(validate.errors ?? [])),
    is: (value): value is T => validate(value),
  };
};

/**
 * A body that must be a T, or the 400 that names its bad fields: one field in `fieldName`, several in the message
 * and the nested errors. The login endpoint and the admin API answer request bodies this way.
 */
export const requireValid = <T>(validator: Validator<T>, body: unknown): T => {
  const problems = validator.problems(body);
  if (problems.length === 0) return body as T;
  throw invalidFields(problems);
};

/** The 400 for one or more bad fields: one in `fieldName`, several in the message and the nested errors. */
export const invalidFields = (problems: readonly FieldProblem[]): LarderError =>
  new LarderError('ERR_VALIDATION', {
    message: problems.map((p) => `${p.fieldName} ${p.message}`).join('; '),
    ...(problems.length === 1 && problems[0] !== undefined ? { fieldName: problems[0].fieldName } : {}),
    problems,
  });
