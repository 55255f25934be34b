import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseThrottleLimit, type ThrottleLimit } from '../auth/failure-throttle.js';
import { parseRateLimit, type RatePolicy } from '../middleware/rate-limit/rate-windows.js';
import type { FaultRule } from '../sandbox/fault-schemas.js';
import { loadFaultsFile } from '../sandbox/faults.js';
import { MAX_TOKEN_TTL_SECONDS, MIN_TOKEN_TTL_SECONDS } from '../shared/limits.js';
import type { StoreLocation } from '../storage/open-store.js';
import { intOption, type ParsedArgs, UsageError } from './command.js';

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
  trustProxy: boolean;
  workers: number;
  /** Seed demo data and a demo client into a new embedded database. */
  demo: boolean;
  /** Turns the admin API on (a demo database has one of its own). */
  adminToken?: string;
  journalSize: number;
  loginThrottle: ThrottleLimit | 'off';
  /** Demo locations keep trading as the clock passes midnight UTC. */
  live: boolean;
  /** --rate-limit: the platform's limits, others, or off. */
  rateLimit: readonly RatePolicy[] | 'off';
  /** --faults FILE: rules injected from the start (with or without the admin API: the operator asked). */
  faults?: readonly FaultRule[];
  /** --allow-fault-header: honour Larder-Fault on requests. */
  allowFaultHeader: boolean;
}

const parsePublicUrl = (raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--public-url must be an absolute http(s) URL, not ${raw}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--public-url must use http or https.');
  return raw.replace(/\/+$/, '');
};

export const parseServeConfig = (args: ParsedArgs): ServeConfig => {
  const publicUrl = parsePublicUrl(args.strings['public-url']);
  const databaseUrl = args.strings['database-url'];
  const adminToken = args.strings['admin-token'];
  const throttle = parseThrottleLimit(args.strings['login-throttle']!);
  if (throttle === undefined)
    throw new UsageError(
      `--login-throttle must be a count per window (10/min, 5/30s, 100/h) or off, not ${args.strings['login-throttle']}.`,
    );
  const rateLimit = parseRateLimit(args.strings['rate-limit'] ?? 'off');
  if (rateLimit === undefined)
    throw new UsageError(
      `--rate-limit must be platform, off, or limits such as 5/s,100/15m (up to four), not ${args.strings['rate-limit']}.`,
    );
  const faultsFile = args.strings['faults'];
  let faults: readonly FaultRule[] | undefined;
  try {
    faults = faultsFile === undefined ? undefined : loadFaultsFile(faultsFile);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH)
    throw new UsageError(`--admin-token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters.`);
  return {
    store: {
      db: args.strings['db']!,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      // The primary migrates (once); workers only check the schema.
      migrate: args.flags['migrate'] === true && !cluster.isWorker,
      poolSize: intOption(args, 'pool-size', 1, 1000),
    },
    host: args.strings['host']!,
    port: intOption(args, 'port', 0, 65535),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    tokenTtlSeconds: intOption(args, 'token-ttl', MIN_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS),
    trustProxy: args.flags['trust-proxy'] === true,
    workers: args.strings['workers'] === 'auto' ? availableParallelism() : intOption(args, 'workers', 1, 64),
    demo: args.flags['no-demo'] !== true,
    ...(adminToken === undefined ? {} : { adminToken }),
    journalSize: intOption(args, 'journal-size', 1, MAX_JOURNAL_SIZE),
    loginThrottle: throttle,
    live: args.flags['no-live'] !== true,
    rateLimit,
    ...(faults === undefined ? {} : { faults }),
    allowFaultHeader: args.flags['allow-fault-header'] === true,
  };
};
