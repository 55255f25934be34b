import { type ClientOptions, createClient, LarderTransportError, type Watermark } from '@larder/client';
import {
  type FieldCounts,
  RECORD_KINDS,
  type RecordKind,
  type RecordKindName,
  type RecordRow,
  toFieldCounts,
} from '../records/kinds.js';
import { badPortReason, FETCH_BAD_PORT } from '../shared/bad-ports.js';
import { LarderError } from '../shared/errors.js';
import { createValidator } from '../shared/validator.js';
import type { PullState, Store } from '../storage/store.js';

export interface PullOptions {
  /** The source server's base URL. */
  from: string;
  clientId: string;
  clientSecret: string;
  /** The location at the source. */
  location: string;
  /** The local location the records go into. */
  intoLocation: string;
  /** Start here (YYYY-MM-DD or an ISO instant) instead of the stored watermark. */
  since?: string;
  /** Records per page asked for (default 500). */
  pageSize?: number;
  signal?: AbortSignal;
  /** Called with the records received so far. */
  onProgress?: (records: number) => void;
  /** The client's transport settings (tests: a virtual-clock sleep). */
  client?: Partial<Pick<ClientOptions, 'fetch' | 'retry' | 'sleep' | 'now' | 'timeoutMs'>>;
}

export interface PullResult {
  /** Records written, by each kind's countField. */
  counts: FieldCounts;
  /** Where this run started: `all` (no watermark), a `--since` value, or the stored watermark's day per kind. */
  started: Partial<Record<RecordKindName, string>>;
  state: PullState;
}

/** How long one request may wait and retry in a pull: past the platform's longest window. */
const PULL_RETRY_BUDGET_MS = 16 * 60_000;

/**
 * Why a request cannot reach a server at all: nothing listens (ECONNREFUSED), no such host (ENOTFOUND), no route to
 * it, or a port fetch refuses to use ("bad port", which has no code). Retrying these before the source ever
 * answered only delays the same failure by the whole backoff.
 */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

const UNTRUSTED_HINT =
  'To trust a private CA or a self-signed certificate (larder serve --tls self-signed), name its PEM file in NODE_EXTRA_CA_CERTS';
const EXPIRED_HINT = "Renew the source's certificate, or check this machine's clock";

/**
 * TLS failures that waiting never clears, each with what to do about it when there is something to say: the
 * certificate's verification codes (as Node names OpenSSL's), a host name it is not for, and an https:// URL that
 * answers plain HTTP.
 */
const INSECURE = new Map<string, string | undefined>([
  ['DEPTH_ZERO_SELF_SIGNED_CERT', UNTRUSTED_HINT],
  ['SELF_SIGNED_CERT_IN_CHAIN', UNTRUSTED_HINT],
  ['UNABLE_TO_GET_ISSUER_CERT', UNTRUSTED_HINT],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', UNTRUSTED_HINT],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', UNTRUSTED_HINT],
  ['CERT_UNTRUSTED', UNTRUSTED_HINT],
  ['CERT_HAS_EXPIRED', EXPIRED_HINT],
  ['CERT_NOT_YET_VALID', EXPIRED_HINT],
  ['ERR_TLS_CERT_ALTNAME_INVALID', undefined],
  ['ERR_SSL_WRONG_VERSION_NUMBER', 'The source may speak plain HTTP: try http://'],
  ...[
    'CERT_SIGNATURE_FAILURE',
    'CERT_REVOKED',
    'CERT_REJECTED',
    'CERT_CHAIN_TOO_LONG',
    'INVALID_CA',
    'INVALID_PURPOSE',
    'PATH_LENGTH_EXCEEDED',
    'HOSTNAME_MISMATCH',
    'ERROR_IN_CERT_NOT_BEFORE_FIELD',
    'ERROR_IN_CERT_NOT_AFTER_FIELD',
    'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
    'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  ].map((code) => [code, undefined] as const),
]);

/** What a failed fetch says of a source it will never reach by trying again, or undefined for any other failure. */
const hopeless = (from: string, error: unknown): string | undefined => {
  // fetch's own "fetch failed" says nothing; its cause says why, in a message or (for several addresses of one
  // name, all refused) a code alone.
  const cause = (error as { cause?: { code?: unknown; message?: unknown; reason?: unknown; cert?: unknown } })
    .cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : '';
  if (message === FETCH_BAD_PORT) return `cannot reach ${from}: ${badPortReason(from)}`;
  if (code !== undefined && UNREACHABLE.has(code)) return `cannot reach ${from}: ${message || code}`;
  if (code === undefined || !INSECURE.has(code)) return undefined;
  // OpenSSL's own errors carry its whole error line as message, the words alone as reason.
  const reason = code.startsWith('ERR_SSL_') && typeof cause?.reason === 'string' ? cause.reason : message;
  // Node lists the certificate's names of the kind asked for alone (none, for an IP and a certificate of DNS names).
  const names = (cause?.cert as { subjectaltname?: unknown } | undefined)?.subjectaltname;
  const hint =
    code === 'ERR_TLS_CERT_ALTNAME_INVALID' && typeof names === 'string'
      ? `Use a host name the certificate is for: ${names}`
      : INSECURE.get(code);
  return `cannot connect securely to ${from}: ${reason.replace(/[:\s]+$/, '')} (${code})${hint === undefined ? '' : `. ${hint}`}`;
};

/**
 * A fetch that, until the source first answers, turns a failure that retrying cannot mend (it cannot be reached at
 * all, or not securely) into an abort of `signal`, with the reason saying so: the client retries transport
 * failures, and an abort is what ends its retries at once. Once the source has answered, the same failure is taken
 * for a passing one (a restart, a certificate being replaced) and retried as any other.
 */
const failFastUntilAnswered = (from: string, fetchImpl: typeof fetch) => {
  const unreachable = new AbortController();
  let answered = false;
  const guarded: typeof fetch = async (input, init) => {
    try {
      const response = await fetchImpl(input, init);
      answered = true;
      return response;
    } catch (error) {
      const why = answered ? undefined : hopeless(from, error);
      if (why !== undefined) unreachable.abort(new LarderTransportError(why, { cause: error }));
      throw error;
    }
  };
  return { fetch: guarded, signal: unreachable.signal };
};

/** Rows handed to the import session at a time. */
const BATCH = 500;

const describeStart = (since: Watermark | string | undefined) =>
  since === undefined ? 'all' : typeof since === 'string' ? since : (since.day ?? 'all');

/**
 * The watermark of a run that received nothing is where it started. A start in the future (`--since 2029-01-01`, a
 * typo for 2019) kept there would make every later run skip what changes until then, so it comes back to yesterday
 * (UTC): a day of leeway for a source whose clock is behind this one's.
 */
const notAhead = (watermark: Watermark, now: number): Watermark => {
  const today = new Date(now).toISOString().slice(0, 10);
  const ahead =
    (watermark.day !== null && watermark.day > today) ||
    (watermark.from !== undefined && Date.parse(watermark.from) > now);
  return ahead ? { day: new Date(now - 86_400_000).toISOString().slice(0, 10), seen: {} } : watermark;
};

/**
 * Copies a location from any server that speaks the retail interface into the local store, through the client:
 * one login, paged, rate limits and failures retried, and incremental from the watermark kept in the store. A run
 * is all or nothing: its records are written in one import session, and the watermark is saved only after the
 * commit. A run killed before the commit leaves the store as it was; one killed between the commit and the saving
 * of the watermark only makes the next run fetch those changes again (upserts by id, so nothing is doubled).
 */
export const pullLocation = async (store: Store, options: PullOptions): Promise<PullResult> => {
  const setting = store.settings.pullState(options.intoLocation);
  const prior = await setting.get();
  const resumable = prior?.from === options.from && prior.location === options.location;
  const reach = failFastUntilAnswered(options.from, options.client?.fetch ?? fetch);
  const client = createClient({
    baseUrl: options.from,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    // A batch copy outlasts a used-up 15-minute window (the platform's 10,000 requests) rather than fail the run.
    retry: { maxElapsedMs: PULL_RETRY_BUDGET_MS },
    ...options.client,
    fetch: reach.fetch,
  });
  const signal =
    options.signal === undefined ? reach.signal : AbortSignal.any([options.signal, reach.signal]);
  const session = await store.records.beginImport({ id: options.intoLocation });
  const watermarks: PullState['watermarks'] = {};
  const started: PullResult['started'] = {};
  let received = 0;
  let counts: FieldCounts;
  try {
    for (const kind of RECORD_KINDS as readonly RecordKind[]) {
      const validator = createValidator<unknown>(kind.schema);
      const since = options.since ?? (resumable ? prior?.watermarks[kind.name] : undefined);
      started[kind.name] = describeStart(since);
      const run = client[kind.name].sync({
        location: options.location,
        pageSize: options.pageSize ?? 500,
        signal,
        ...(since === undefined ? {} : { since }),
      });
      let rows: RecordRow[] = [];
      const before = received;
      for await (const record of run) {
        // The source may be any server: what it sends is checked like an import before it is stored.
        const [problem] = validator.problems(record);
        if (problem !== undefined) {
          const id = String((record as unknown as Record<string, unknown>)[kind.idField]);
          throw new LarderError('ERR_VALIDATION', {
            message: `The source sent an invalid ${kind.label} ${id}: ${problem.fieldName} ${problem.message}. Nothing was stored.`,
          });
        }
        rows.push(kind.toRow(record));
        options.onProgress?.(++received);
        if (rows.length === BATCH) {
          await session.put(kind, rows);
          rows = [];
        }
      }
      if (rows.length > 0) await session.put(kind, rows);
      watermarks[kind.name] = received === before ? notAhead(run.watermark!, Date.now()) : run.watermark!;
    }
    counts = toFieldCounts(await session.commit());
  } catch (error) {
    await session.rollback();
    throw error;
  }
  const state: PullState = {
    from: options.from,
    location: options.location,
    watermarks,
    pulledAt: new Date().toISOString(),
  };
  await setting.set(state);
  return { counts, started, state };
};
