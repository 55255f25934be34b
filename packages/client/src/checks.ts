/** A URL as a message may show it: any `user:password@` masked. */
const withoutUserinfo = (url: string) => url.replace(/\/\/[^/?#]*@/, '//***@');

/**
 * An absolute http(s) URL without credentials, else a TypeError naming the option: checked when a client or sandbox
 * is made, so an environment variable not set is said at once, never as a failed call later. `credentials` says what
 * is sent instead of a URL's user:password.
 */
export const checkUrl = (name: string, url: unknown, credentials: string): void => {
  const parsed = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
  if (!(parsed !== undefined && /^https?:$/.test(parsed.protocol)))
    throw new TypeError(
      `${name} must be an absolute http(s) URL such as http://127.0.0.1:8080, not ${
        typeof url === 'string' ? withoutUserinfo(url) : String(url)
      }`,
    );
  // fetch refuses such a URL at every call; said here, and the password is never echoed.
  if (parsed.username !== '' || parsed.password !== '')
    throw new TypeError(`${name} must not hold credentials (user:password@): ${credentials}`);
};

export const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The server's base: the host the retail paths (/v1/…), the login by default and the sandbox's /_larder/… go under: the interface's
 * base URL ends in /v1, which given as baseUrl would double into /v1/v1/… (a 404), so one trailing /v1 is taken off.
 */
export const serverBase = (url: string) => trimSlash(url).replace(/\/v1$/, '');

/** The longest a timer can wait (2^31 - 1 ms, about 24.8 days): AbortSignal.timeout refuses more. */
const MAX_TIMER_MS = 2_147_483_647;

/** A time or count in whole milliseconds a timer can keep, from `min`. */
export const checkWhole = (name: string, value: unknown, min: number): void => {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > MAX_TIMER_MS)
    throw new TypeError(
      `${name} must be a whole number from ${min} to ${MAX_TIMER_MS}, not ${String(value)}`,
    );
};

/** Each option named that is given must be a function (a fetch, a sleep …), not a value put in the wrong place. */
export const checkFunctions = (options: object, names: readonly string[]): void => {
  for (const name of names) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && typeof value !== 'function')
      throw new TypeError(`${name} must be a function, not ${typeof value}`);
  }
};

/** A credential: a non-empty string, never echoed (the value may be a secret). */
export const checkSecret = (name: string, value: unknown): void => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
};

/**
 * Whether a header carries the value as it is: fetch strips spaces, tabs and line breaks at either end (a location
 * `Café\n` would be answered as `Café`), and refuses a line break or NUL within and characters beyond U+00FF.
 */
export const headerCarries = (value: unknown): value is string =>
  typeof value === 'string' && !/^[\t\n\r ]|[\t\n\r ]$|[\0\n\r]|[^\0-\xff]/.test(value);

export const HEADER_RULE =
  'string a header carries as it is: no space, tab or line break at either end, no line break or NUL within, nothing beyond U+00FF';

/**
 * One segment of a request's path, encoded, so an id with `/`, `?` or `#` stays one segment. A URL resolves `.` and
 * `..` (and `%2e`, which it reads alike) away, so no path can carry them: a TypeError naming the value, as an empty
 * one that would name the collection.
 */
export const pathSegment = (name: string, value: unknown): string => {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..')
    throw new TypeError(
      `${name} must be a non-empty string other than "." and ".." (a URL resolves them away), not ${JSON.stringify(value)}`,
    );
  return encodeURIComponent(value);
};
