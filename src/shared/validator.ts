import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DATE_TIME_HINT, isDateTime } from './date-time.js';
import { meantAside } from './did-you-mean.js';
import { type FieldProblem, LarderError } from './errors.js';
import { PATTERN_WORDS, UUID } from './schema-helpers.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// verbose: a failed value travels with its error, so a misspelt enum value is told the one it most likely meant.
const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  strict: true,
  strictTypes: false,
  allowUnionTypes: true,
});
addFormats(ajv, ['date', 'int32', 'double']);
// Not ajv-formats' uuid: it takes a `urn:uuid:` prefix too (see UUID).
ajv.addFormat('uuid', UUID);
// Not ajv-formats' date-time: it takes spellings Date.parse rejects or misreads (see date-time.ts).
ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
// An annotation only: the words a failed `pattern` is told in (see patternWords).
ajv.addKeyword({ keyword: PATTERN_WORDS, schemaType: 'string' });

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

/** The properties the object schema holding an error on its keys (`additionalProperties`, …) knows, by schema path. */
const knownProperties = (root: TSchema, schemaPath: string): string[] => {
  let node: unknown = root;
  for (const raw of schemaPath.split('/').slice(1, -1)) {
    if (typeof node !== 'object' || node === null) return [];
    node = (node as Record<string, unknown>)[raw.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  const properties = (node as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
};

const describe = (error: ErrorObject, root: TSchema): FieldProblem => {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        fieldName: toFieldPath(error.instancePath, String(params['missingProperty'])),
        message: 'is required',
      };
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      return {
        fieldName: toFieldPath(error.instancePath, field),
        message: `is not a known field${meantAside(field, knownProperties(root, error.schemaPath))}`,
      };
    }
    case 'enum': {
      const allowed = params['allowedValues'] as unknown[];
      const names = allowed.filter((value): value is string => typeof value === 'string');
      return {
        fieldName: toFieldPath(error.instancePath),
        message: `must be one of ${allowed.join(', ')}${typeof error.data === 'string' ? meantAside(error.data, names) : ''}`,
      };
    }
    case 'format':
      return {
        fieldName: toFieldPath(error.instancePath),
        message: `must be a valid ${String(params['format'])}${formatHint(String(params['format']))}`,
      };
    // Users read what the field allows in words; a regular expression is for machines.
    case 'pattern':
      return { fieldName: toFieldPath(error.instancePath), message: patternWords(error.parentSchema) };
    // An object that takes exactly one of its fields (a fault rule's `when`): name them, not a property count.
    case 'minProperties':
    case 'maxProperties': {
      const names = knownProperties(root, error.schemaPath);
      if (params['limit'] === 1 && names.length > 1)
        return {
          fieldName: toFieldPath(error.instancePath),
          message: `${error.keyword === 'maxProperties' ? 'takes only one' : 'needs one'} of ${names.join(', ')}`,
        };
      return { fieldName: toFieldPath(error.instancePath), message: error.message ?? 'is not valid' };
    }
    default:
      return { fieldName: toFieldPath(error.instancePath), message: error.message ?? 'is not valid' };
  }
};

/** `must be <words>` from the failed schema's PATTERN_WORDS (test/server/pattern-words.test.ts checks each has them). */
const patternWords = (schema: unknown): string => {
  const words = (schema as Record<string, unknown> | undefined)?.[PATTERN_WORDS];
  return typeof words === 'string' ? `must be ${words}` : 'is not in the form this field takes';
};

const formatHint = (format: string): string =>
  format === 'date' ? ' (YYYY-MM-DD)' : format === 'date-time' ? ` (${DATE_TIME_HINT})` : '';

/** An error body names at most this many fields and says how many more: its size and cost stay bounded. */
export const MAX_REPORTED_PROBLEMS = 20;

export interface ProblemReport {
  /** The first MAX_REPORTED_PROBLEMS fields at fault. */
  problems: FieldProblem[];
  /** How many more fields are at fault. */
  more: number;
}

/** Ajv reports a failed `T | null` three times (type, type null, anyOf); keep the specific one per field. */
const simplify = (errors: readonly ErrorObject[], root: TSchema): ProblemReport => {
  const byField = new Map<string, FieldProblem>();
  const others = new Set<string>();
  for (const error of errors) {
    if (
      error.keyword === 'anyOf' ||
      error.keyword === 'if' ||
      (error.keyword === 'type' && error.params['type'] === 'null')
    )
      continue;
    if (byField.size >= MAX_REPORTED_PROBLEMS) {
      // Past the cap only the count matters: a cheap key, no message built.
      const key = `${error.instancePath}/${String(error.params['additionalProperty'] ?? error.params['missingProperty'] ?? '')}`;
      others.add(key);
      continue;
    }
    const problem = describe(error, root);
    const known = byField.get(problem.fieldName);
    if (known === undefined) byField.set(problem.fieldName, problem);
    // Each branch of a union failing (a date or a date-time): "must be a valid date … or a valid date-time …".
    else if (!known.message.includes(problem.message))
      known.message = `${known.message} or ${known.message.startsWith('must be ') ? problem.message.replace(/^must be /, '') : problem.message}`;
  }
  return { problems: [...byField.values()], more: others.size };
};

/** `a is required; b is not a known field; and 3 more`. */
export const describeProblems = (
  { problems, more }: ProblemReport,
  describeOne: (problem: FieldProblem) => string = (p) => `${p.fieldName} ${p.message}`,
  separator = '; ',
): string => `${problems.map(describeOne).join(separator)}${more > 0 ? `${separator}and ${more} more` : ''}`;

export interface Validator<T> {
  /** Returns [] when `value` is a T; otherwise one problem per offending field (the first MAX_REPORTED_PROBLEMS). */
  problems(value: unknown): FieldProblem[];
  /** The problems and how many more fields are at fault. */
  report(value: unknown): ProblemReport;
  is(value: unknown): value is T;
}

/**
 * Validators made but not compiled yet. Compiling every schema at import cost each process about 150 ms, most of it
 * for validators a CLI command or a test of one route never calls. A server compiles them all before it is ready
 * (`compileValidators`), so no request pays for a compile.
 */
const uncompiled = new Set<() => unknown>();

/** How many validators wait for their compile: none once a server is ready. */
export const uncompiledValidators = (): number => uncompiled.size;

/** Compiles every validator not compiled yet: a schema Ajv's strict mode refuses throws here. */
export const compileValidators = (): void => {
  for (const compile of uncompiled) compile();
};

export const createValidator = <T>(schema: TSchema): Validator<T> => {
  let compiled: ValidateFunction<T> | undefined;
  const compile = () => {
    compiled = ajv.compile<T>(schema);
    uncompiled.delete(compile);
    return compiled;
  };
  uncompiled.add(compile);
  const validate = (value: unknown): value is T => (compiled ?? compile())(value);
  return {
    problems: (value) => (validate(value) ? [] : simplify(compiled!.errors ?? [], schema).problems),
    report: (value) =>
      validate(value) ? { problems: [], more: 0 } : simplify(compiled!.errors ?? [], schema),
    is: (value): value is T => validate(value),
  };
};

/**
 * A body that must be a T, or the 400 that names its bad fields: one field in `fieldName`, several in the message
 * and the nested errors. The login endpoint and the admin API answer request bodies this way.
 */
export const requireValid = <T>(validator: Validator<T>, body: unknown): T => {
  const report = validator.report(body);
  if (report.problems.length === 0) return body as T;
  throw invalidFields(report.problems, report.more);
};

/** The 400 for one or more bad fields: one in `fieldName`, several in the message and the nested errors. */
export const invalidFields = (problems: readonly FieldProblem[], more = 0): LarderError =>
  new LarderError('ERR_VALIDATION', {
    message: describeProblems({ problems: [...problems], more }),
    ...(problems.length === 1 && more === 0 && problems[0] !== undefined
      ? { fieldName: problems[0].fieldName }
      : {}),
    problems,
  });
