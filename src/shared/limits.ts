/** Limits named once: the interface's, decisions.md's and Larder's own. */

/** decisions.md: request bodies over 64 KiB are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Records per search page: the default and the largest a client may ask for (`pageSize`). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** Access-token lifetime in seconds: the default (a day, as the platform) and the bounds `--token-ttl` accepts. */
export const DEFAULT_TOKEN_TTL_SECONDS = 86_400;
/** From one second, so expiry can be tested in real time too. */
export const MIN_TOKEN_TTL_SECONDS = 1;
export const MAX_TOKEN_TTL_SECONDS = 31_536_000;

/** interface.md §3: the header that names the location of every retail call. */
export const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

/** The embedded store's file when neither --db nor --database-url is given. */
export const DEFAULT_SQLITE_PATH = './larder.db';

/** The address `serve` binds by default, and the URL the admin CLI reaches it at. */
export const DEFAULT_HOST = '127.0.0.1';
