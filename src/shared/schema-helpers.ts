import { type TSchema, Type } from '@sinclair/typebox';

/** `T | null`, as the interface marks nullable fields. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', ...options });
export const DateTime = (options: { description?: string } = {}) =>
  Type.String({ format: 'date-time', ...options });
export const Int32 = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: -2147483648, maximum: 2147483647, format: 'int32', ...options });
export const Double = (options: { description?: string } = {}) =>
  Type.Number({ format: 'double', ...options });

/** Objects are closed: an unknown field is an error on input, and never served. */
export const Closed = { additionalProperties: false } as const;
