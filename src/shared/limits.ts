/** Limits named once: the interface's, decisions.md's and Larder's own. */

/** decisions.md: request bodies over 64 KiB are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The longest record `larder import` and fixture uploads take, in UTF-8 bytes: a file's records stream, but each
 * is held whole to be parsed, so one endless line must not take the memory. Far above any real record (a
 * purchase order of hundreds of items is a few hundred KB).
 */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** Records per search page: the default and the largest a client may ask for (`pageSize`). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** A `?pageSize=` as sent: decimal digits valued 1 to MAX_PAGE_SIZE (leading zeros ignored), else undefined. */
export const pageSizeOf = (raw: string): number | undefined => {
  const size = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return size >= 1 && size <= MAX_PAGE_SIZE ? size : undefined;
};

/** Access-token lifetime in seconds: the default (a day, as the platform) and the bounds `--token-ttl` accepts. */
export const DEFAULT_TOKEN_TTL_SECONDS = 86_400;
/** From one second, so expiry can be tested in real time too. */
export const MIN_TOKEN_TTL_SECONDS = 1;
export const MAX_TOKEN_TTL_SECONDS = 31_536_000;

/**
 * SQLite's page cache per connection, in MiB (`--sqlite-cache-mb`). It grows only as pages are read, so a small
 * store never fills it. SQLite evicts the least recently used page, so reads cycling over more pages than it holds
 * miss on every one: GETs of 2,000 ids of a 10M-entry store (two 16 KiB leaf pages each, about 5,000 pages with
 * the interior ones) re-read 3 GB from the OS in 10 s at 64 MiB, and no pages at 128 MiB (2026-12-07).
 */
export const DEFAULT_SQLITE_CACHE_MB = 64;
export const MIN_SQLITE_CACHE_MB = 1;
export const MAX_SQLITE_CACHE_MB = 65_536;

/** interface.md §3: the header that names the location of every retail call. */
export const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

/** Where the sandbox's admin API lives. */
export const ADMIN_PREFIX = '/_larder';

/**
 * A location id, wherever one is given (larder import and pull, the admin API's paths): it travels in
 * LOCATION_HEADER, whose bytes clients encode differently beyond ASCII (curl sends UTF-8, fetch Latin-1), and
 * the retail API trims it, so only visible ASCII is matched alike from every client. Both stores hold any text.
 */
// Not `.` or `..` alone: a URL resolves them away, so /_larder/locations/{id} could never reach such a location.
export const LOCATION_ID = /^(?!\.\.?$)[\x21-\x7e]{1,200}$/;
export const LOCATION_ID_RULE = `1 to 200 visible ASCII characters (no spaces), not . or .. alone: it travels in the ${LOCATION_HEADER} header and in the admin API's paths, where a URL resolves those away`;

/** The embedded store's file when neither --db nor --database-url is given. */
export const DEFAULT_SQLITE_PATH = './larder.db';

/** The address `serve` binds by default, and the URL the admin CLI reaches it at. */
export const DEFAULT_HOST = '127.0.0.1';
