import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseThrottleLimit, type ThrottleLimit } from '../auth/failure-throttle.js';
import { parseTrustProxy, type TrustProxy } from '../auth/source-address.js';
import {
  parseRateLimit,
  RATE_LIMIT_HEADER_STYLES,
  type RateLimitHeaderStyle,
  type RatePolicy,
} from '../middleware/rate-limit/rate-windows.js';
import type { FaultRule } from '../sandbox/fault-schemas.js';
import { loadFaultsFile } from '../sandbox/faults.js';
import { isWildcardHost } from '../server/server.js';
import {
  MAX_SQLITE_CACHE_MB,
  MAX_TOKEN_TTL_SECONDS,
  MIN_SQLITE_CACHE_MB,
  MIN_TOKEN_TTL_SECONDS,
} from '../shared/limits.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../shared/logger.js';
import {
  MAX_MAX_CONNECTIONS,
  MAX_REQUEST_TIMEOUT_SECONDS,
  MAX_SHUTDOWN_DELAY_SECONDS,
  MAX_SHUTDOWN_TIMEOUT_SECONDS,
} from '../shared/server-limits.js';
import type { StoreLocation } from '../storage/open-store.js';
import { intOption, maskedUrl, optionLabel, type ParsedArgs, UsageError } from './command.js';
import { keyEncryptionKeyFrom, storeDatabaseUrl } from './store-options.js';

/** Short tokens are guessable: the admin API can inject faults and rewrite the clock. */
const MIN_ADMIN_TOKEN_LENGTH = 16;
/** About 5 KB an entry at most: the largest journal stays within a few hundred MB. */
const MAX_JOURNAL_SIZE = 100_000;

/** Everything `serve` was asked for, parsed and validated once (flags > environment > defaults). */
export interface ServeConfig {
  store: StoreLocation;
  host: string;
  port: number;
  /** Set by --public-url; otherwise the issuer is the bound address. */
  publicUrl?: string;
  tokenTtlSeconds: number;
  trustProxy: TrustProxy;
  workers: number;
  /** Seed demo data and a demo client into a new embedded database. */
  demo: boolean;
  /** Turns the admin API on (a demo database has one of its own). */
  adminToken?: string;
  journalSize: number;
  loginThrottle: ThrottleLimit | 'off';
  /** Demo locations keep trading as the clock passes midnight UTC. */
  live: boolean;
  logLevel: LogLevel;
  /** json: every line is a JSON object; pretty: pino-pretty lines and the banner as text. */
  logFormat: LogFormat;
  /** Serve GET /metrics on this port (its own listener); absent: no metrics. */
  metricsPort?: number;
  /** HTTPS from PEM files, or a development certificate made at start. */
  tls?: { certFile: string; keyFile: string } | 'self-signed';
  /** --key-file's path, so the start can warn when other users can read it. */
  keyFile?: string;
  /** `--cors`: origins allowed to call the retail and auth routes from a browser (`*`: any). */
  cors?: readonly string[];
  /** --rate-limit: the platform's limits, others, or off. */
  rateLimit: readonly RatePolicy[] | 'off';
  /** --rate-limit-headers: the platform's X-RateLimit-* fields, the IETF ones, or both. */
  rateLimitHeaders: RateLimitHeaderStyle;
  /** --faults FILE: rules injected from the start (with or without the admin API: the operator asked). */
  faults?: readonly FaultRule[];
  /** --allow-fault-header: honour Larder-Fault on requests. */
  allowFaultHeader: boolean;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** --shutdown-delay: how long /readyz answers 503 before the listener closes. */
  shutdownDelayMs: number;
  /** Per instance: each of N workers takes its share. */
  maxConnections: number;
}

const oneOf = <T extends string>(args: ParsedArgs, name: string, allowed: readonly T[]): T => {
  const raw = args.strings[name];
  if (raw !== undefined && (allowed as readonly string[]).includes(raw)) return raw as T;
  throw new UsageError(`${optionLabel(args, name)} must be one of ${allowed.join(', ')}, not ${raw}.`);
};

const parseTls = (args: ParsedArgs): ServeConfig['tls'] => {
  // Flags beat the environment: a flag of one kind (self-signed, or files) sets aside variables of the other.
  const fileFlag = args.given.has('tls-cert') || args.given.has('tls-key');
  const modeFlag = args.given.has('tls');
  const mode = fileFlag && !modeFlag ? undefined : args.strings['tls'];
  const certFile = modeFlag && !fileFlag ? undefined : args.strings['tls-cert'];
  const keyFile = modeFlag && !fileFlag ? undefined : args.strings['tls-key'];
  const label = (name: string) => optionLabel(args, name);
  if (mode !== undefined && mode !== 'self-signed')
    throw new UsageError(
      `${label('tls')} takes only self-signed (or give --tls-cert and --tls-key), not ${mode}.`,
    );
  if (mode !== undefined && (certFile !== undefined || keyFile !== undefined))
    throw new UsageError(
      `Give ${label('tls')} self-signed or ${label(certFile === undefined ? 'tls-key' : 'tls-cert')}, not both.`,
    );
  if (mode !== undefined) return mode;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError(
      `${label(certFile === undefined ? 'tls-key' : 'tls-cert')} needs ${certFile === undefined ? '--tls-cert' : '--tls-key'} too: --tls-cert and --tls-key go together.`,
    );
  return { certFile, keyFile };
};

export const parsePublicUrl = (args: ParsedArgs): string | undefined => {
  const raw = args.strings['public-url'];
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `${optionLabel(args, 'public-url')} must be an absolute http(s) URL, not ${maskedUrl(raw)}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${optionLabel(args, 'public-url')} must use http or https.`);
  // The URL is the issuer, served in discovery and signed into every token: never a password, and (RFC 8414 §2)
  // no query or fragment, which every endpoint URL would also carry after its own path.
  if (url.username !== '' || url.password !== '')
    throw new UsageError(`${optionLabel(args, 'public-url')} must not hold credentials (user:password@).`);
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(raw))
    throw new UsageError(
      `${optionLabel(args, 'public-url')} must have no query (?…) or fragment (#…): it is the issuer, and endpoints are paths under it.`,
    );
  // new URL() trims them; the issuer would keep them.
  if (raw.trim() !== raw)
    throw new UsageError(`${optionLabel(args, 'public-url')} must not start or end with spaces.`);
  return raw.replace(/\/+$/, '');
};

/** `--cors https://a.example,http://localhost:3000`: origins exactly (scheme, host, port), or `*`. */
export const parseCorsOrigins = (args: ParsedArgs): string[] | undefined => {
  const raw = args.strings['cors'];
  if (raw === undefined || raw.trim() === '') return undefined;
  const origins = raw.split(',').map((origin) => origin.trim());
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
      throw new UsageError(
        `${optionLabel(args, 'cors')} takes origins like https://app.example.com or http://localhost:3000 (no path or trailing slash), or *; not ${origin || '(empty)'}.`,
      );
  }
  return origins;
};

export const parseServeConfig = (args: ParsedArgs): ServeConfig => {
  const label = (name: string) => optionLabel(args, name);
  const publicUrl = parsePublicUrl(args);
  const databaseUrl = storeDatabaseUrl(args);
  const adminToken = args.strings['admin-token'];
  const keyEncryptionKey = keyEncryptionKeyFrom(args);
  const cors = parseCorsOrigins(args);
  const throttle = parseThrottleLimit(args.strings['login-throttle']!);
  if (throttle === undefined)
    throw new UsageError(
      `${label('login-throttle')} must be a count per window (10/min, 5/30s, 100/h) or off, not ${args.strings['login-throttle']}.`,
    );
  const trustProxy = parseTrustProxy(args.strings['trust-proxy']);
  // The parser's message names the flag; the user may have set the variable.
  if (typeof trustProxy === 'string')
    throw new UsageError(trustProxy.replace('--trust-proxy', label('trust-proxy')));
  const host = args.strings['host']!;
  if (publicUrl === undefined && isWildcardHost(host))
    throw new UsageError(
      `Binding ${host} (${label('host')}) serves other machines, which cannot reach "localhost": give --public-url with the address they use (https://larder.example.com, http://10.0.0.5:8080).`,
    );
  const tls = parseTls(args);
  const metricsPort =
    args.strings['metrics-port'] === undefined ? undefined : intOption(args, 'metrics-port', 0, 65535);
  const rateLimit = parseRateLimit(args.strings['rate-limit'] ?? 'off');
  if (rateLimit === undefined)
    throw new UsageError(
      `${label('rate-limit')} must be platform, off, or limits such as 5/s,100/15m (up to four), not ${args.strings['rate-limit']}.`,
    );
  const faultsFile = args.strings['faults'];
  let faults: readonly FaultRule[] | undefined;
  try {
    faults = faultsFile === undefined ? undefined : loadFaultsFile(faultsFile, label('faults'));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH)
    throw new UsageError(`${label('admin-token')} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters.`);
  return {
    store: {
      db: args.strings['db']!,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      // The primary migrates (once); workers only check the schema.
      migrate: args.flags['migrate'] === true && !cluster.isWorker,
      migrateAtStart: 'larder serve --migrate …',
      poolSize: intOption(args, 'pool-size', 1, 1000),
      sqliteCacheMb: intOption(args, 'sqlite-cache-mb', MIN_SQLITE_CACHE_MB, MAX_SQLITE_CACHE_MB),
      ...(keyEncryptionKey === undefined ? {} : { keyEncryptionKey }),
    },
    host,
    port: intOption(args, 'port', 0, 65535),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    tokenTtlSeconds: intOption(args, 'token-ttl', MIN_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS),
    trustProxy,
    workers: args.strings['workers'] === 'auto' ? availableParallelism() : intOption(args, 'workers', 1, 64),
    demo: args.flags['no-demo'] !== true,
    ...(adminToken === undefined ? {} : { adminToken }),
    journalSize: intOption(args, 'journal-size', 0, MAX_JOURNAL_SIZE),
    loginThrottle: throttle,
    live: args.flags['no-live'] !== true,
    logLevel: oneOf(args, 'log-level', LOG_LEVELS),
    logFormat: oneOf(args, 'log-format', LOG_FORMATS),
    ...(metricsPort === undefined ? {} : { metricsPort }),
    ...(tls === undefined ? {} : { tls }),
    ...(args.strings['key-file'] === undefined ? {} : { keyFile: args.strings['key-file'] }),
    ...(cors === undefined ? {} : { cors }),
    rateLimit,
    rateLimitHeaders: oneOf(args, 'rate-limit-headers', RATE_LIMIT_HEADER_STYLES),
    ...(faults === undefined ? {} : { faults }),
    allowFaultHeader: args.flags['allow-fault-header'] === true,
    requestTimeoutMs: intOption(args, 'request-timeout', 1, MAX_REQUEST_TIMEOUT_SECONDS) * 1000,
    shutdownTimeoutMs: intOption(args, 'shutdown-timeout', 0, MAX_SHUTDOWN_TIMEOUT_SECONDS) * 1000,
    shutdownDelayMs: intOption(args, 'shutdown-delay', 0, MAX_SHUTDOWN_DELAY_SECONDS) * 1000,
    maxConnections: intOption(args, 'max-connections', 1, MAX_MAX_CONNECTIONS),
  };
};
