/**
 * PostgreSQL cannot store a NUL character (in text or jsonb) and SQLite can. Refusing NUL at the edges (request
 * bodies, imported records) gives every field the same 400 on both backends instead of a database error on one.
 */

/** Only a \u0000 escape can put a NUL into parsed JSON: the walk below runs only for texts that have one. */
export const mayHoldNul = (jsonText: string): boolean => jsonText.includes('\\u0000');

/** The path (`items[0].name`) of the first string or key holding a NUL character, if any. */
export const nulFieldOf = (value: unknown, path = ''): string | undefined => {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulFieldOf(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const field = path === '' ? key : `${path}.${key}`;
    if (key.includes('\u0000')) return field;
    const found = nulFieldOf(member, field);
    if (found !== undefined) return found;
  }
  return undefined;
};

export const NUL_MESSAGE = 'must not contain a NUL character';
