/** The HTTP server's own bounds (`larder serve` flags), per instance: with --workers N each worker gets 1/N. */

/** `--request-timeout`: a request still unanswered after this gets a 503 (canRetry). */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 10;
export const MAX_REQUEST_TIMEOUT_SECONDS = 600;

/** `--shutdown-timeout`: how long SIGTERM waits for requests in flight before cutting their connections. */
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 10;
export const MAX_SHUTDOWN_TIMEOUT_SECONDS = 600;
/** --shutdown-delay: at most this long answering /readyz 503 before closing. */
export const MAX_SHUTDOWN_DELAY_SECONDS = 300;

/** `--max-connections`: open connections at once; further ones are closed on arrival. */
export const DEFAULT_MAX_CONNECTIONS = 1000;
export const MAX_MAX_CONNECTIONS = 1_000_000;

/** A connection must send its request head within this (slowloris; idle connections before a first request). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, head and body (a body is at most 64 KiB). */
export const REQUEST_BODY_TIMEOUT_MS = 30_000;
/**
 * An idle keep-alive connection is closed after this: longer than the usual load balancer idle timeout (60 s),
 * so the balancer closes first and never reuses a connection Larder is closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
