import type { Context } from 'hono';
import { LarderError } from '../shared/errors.js';

/**
 * A query parameter that takes one value: given twice (`?pageSize=10&pageSize=500`) it is a 400 naming it, since
 * using either would quietly drop the other.
 */
export const singleQuery = (c: Context, name: string): string | undefined => {
  // Most requests have no query string at all: then there is nothing to parse.
  if (!c.req.url.includes('?')) return undefined;
  const values = c.req.queries(name);
  if (values !== undefined && values.length > 1)
    throw new LarderError('ERR_QUERY_PARAM', {
      fieldName: name,
      message: `${name} is given ${values.length} times; it takes one value.`,
    });
  return values?.[0];
};
