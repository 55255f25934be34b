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

/** A credential: a non-empty string, never echoed (the value may be a secret). */
export const checkSecret = (name: string, value: unknown): void => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
};
