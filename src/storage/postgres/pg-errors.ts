import { StoreError } from '../../shared/errors.js';

/** Socket-level failures: the server is unreachable or the connection was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that mean "the database is not serving right now", all worth a retry by the caller: shutdowns
 * (57P01–57P03), the database dropped (57P04), statement timeout or cancel (57014), and, refused at connect,
 * a database not accepting connections (55000), one that does not exist (3D000) or a login it refuses (28xxx).
 * Whole classes too: 08 (connection exceptions) and 53 (insufficient resources: disk full, out of memory, too
 * many connections).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '57014', '55000', '3D000']);
const UNAVAILABLE_CLASSES = ['08', '28', '53'];

/** node-postgres reports a dropped socket or a pool connect timeout only in the message. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  // query_timeout: no answer on the wire (a silent connection).
  'Query read timeout',
];

const codeOf = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
};

export const isUnavailableError = (error: unknown): boolean => {
  if (error instanceof AggregateError) return error.errors.some(isUnavailableError);
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((text) => message.includes(text));
};

const UNIQUE_VIOLATION = '23505';
/** A NUL byte in text (22021), or \u0000 in JSON text (22P05): values PostgreSQL cannot hold. */
const INVALID_VALUE_SQLSTATES = new Set(['22021', '22P05']);

/** What node-postgres answers a caller once `pool.end()` has been called. */
const POOL_ENDED = 'Cannot use a pool after calling end on the pool';

/**
 * Turns a pg failure into the StoreError callers see; anything unexpected is left as it is. Once the store is
 * `closing`, a lost or silent database is the stop's business, not the caller's: the server closes the store only
 * after it stopped serving, so the operation belongs to a request or background run the stop has cut.
 */
export const toStoreError = (error: unknown, closing = false): unknown => {
  if (error instanceof StoreError) return error;
  if ((error instanceof Error && error.message === POOL_ENDED) || (closing && isUnavailableError(error))) {
    return new StoreError('STORE_CLOSED', 'The PostgreSQL store was closed before the operation finished.', {
      cause: error,
    });
  }
  if (isUnavailableError(error)) {
    return new StoreError(
      'STORE_UNAVAILABLE',
      'PostgreSQL is unavailable (unreachable, refusing this login or database, or the connection was lost).',
      {
        cause: error,
      },
    );
  }
  const code = codeOf(error);
  if (code === UNIQUE_VIOLATION) {
    return new StoreError('STORE_DUPLICATE', 'A row with this key already exists.', { cause: error });
  }
  if (code !== undefined && INVALID_VALUE_SQLSTATES.has(code)) {
    return new StoreError('STORE_INVALID_VALUE', 'PostgreSQL cannot store this value.', { cause: error });
  }
  return error;
};
