import { type StringOptions, type TSchema, Type } from '@sinclair/typebox';

/** `T | null`, as the interface marks nullable fields. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A UUID in its string form (RFC 9562 §4), any letter case: what a get by id takes in its path. The `uuid` format
 * is checked with it, since ajv-formats' also takes a `urn:uuid:` prefix, and a record imported with such an id
 * would be served with a non-UUID id that no get by id could ask for.
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', ...options });
export const DateTime = (options: { description?: string } = {}) =>
  Type.String({ format: 'date-time', ...options });
export const Int32 = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: -2147483648, maximum: 2147483647, format: 'int32', ...options });
export const Double = (options: { description?: string } = {}) =>
  Type.Number({ format: 'double', ...options });

/** Objects are closed: an unknown field is an error on input, and never served. */
export const Closed = { additionalProperties: false } as const;

/**
 * The keyword kept beside every `pattern`: what the pattern allows, in plain words. A 400 for a value that does not
 * match quotes these words, never the regular expression (src/shared/validator.ts). An `x-` name, so the OpenAPI
 * document that carries the schemas stays valid.
 */
export const PATTERN_WORDS = 'x-pattern-words';

/**
 * A string matching `pattern`, with `words` saying what it allows: a noun phrase that reads after "must be"
 * ("1 to 10 letters"). How a request schema takes a pattern: test/server/pattern-words.test.ts fails on one
 * a request can reach without its words.
 */
export const Patterned = (pattern: string, words: string, options: Omit<StringOptions, 'pattern'> = {}) =>
  Type.String({ ...options, pattern, [PATTERN_WORDS]: words });
