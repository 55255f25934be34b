import { LarderClientError } from '@larder/client';
import { pullLocation } from '../../pull/pull-location.js';
import { describeCounts } from '../../records/kinds.js';
import { DAY_OR_DATE_TIME_HINT, dayOrDateTime } from '../../shared/date-time.js';
import { LOCATION_ID, LOCATION_ID_RULE } from '../../shared/limits.js';
import {
  type Command,
  intOption,
  maskedUrl,
  optionLabel,
  type ParsedArgs,
  requiredOption,
  STORE_OPTIONS,
  UsageError,
} from '../command.js';
import { createProgress } from '../progress.js';
import { withStore } from '../store-options.js';

const sourceUrl = (args: ParsedArgs): string => {
  const text = requiredOption(args, 'from');
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`${optionLabel(args, 'from')} must be an http(s) URL, not ${maskedUrl(text)}.`);
  // Never echoed, and never kept in the store's pull state: the source's credentials are the client's.
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `${optionLabel(args, 'from')} must not hold credentials (user:password@): give --client-id and --client-secret.`,
    );
  return text.replace(/\/+$/, '');
};

export const pullCommand: Command = {
  name: 'pull',
  summary: 'Copy a location from any server that speaks this API into the local store, incrementally.',
  usage:
    'larder pull --from URL --client-id ID --client-secret SECRET --location ID [--into-location ID] [--since DATE] [--page-size 500]',
  options: {
    ...STORE_OPTIONS,
    from: { type: 'string', placeholder: 'URL', env: 'LARDER_PULL_FROM', description: 'The source server.' },
    'client-id': {
      type: 'string',
      placeholder: 'ID',
      env: 'LARDER_PULL_CLIENT_ID',
      description: 'API client at the source.',
    },
    'client-secret': {
      type: 'string',
      placeholder: 'SECRET',
      env: 'LARDER_PULL_CLIENT_SECRET',
      description: 'Its secret (the environment variable keeps it out of the process list).',
    },
    location: { type: 'string', placeholder: 'ID', description: 'The location at the source.' },
    'into-location': {
      type: 'string',
      placeholder: 'ID',
      description: 'The local location to write into (default: the same id).',
    },
    since: {
      type: 'string',
      placeholder: 'DATE',
      description:
        'Start from this day (YYYY-MM-DD) or date-time (RFC 3339: 2025-06-01T09:00:00Z, or with ±HH:MM) instead of the stored watermark.',
    },
    'page-size': {
      type: 'string',
      placeholder: 'N',
      default: '500',
      description: 'Records per page asked of the source (1-500).',
    },
  },
  notes:
    'Incremental: each run starts from the watermark the last one stored for this local location (a run from\n' +
    'another source or location starts over). All or nothing per run: a failed or killed run stores nothing\n' +
    'and the next run resumes from the last stored watermark. 429s wait for Retry-After; 5xx and dropped\n' +
    'connections are retried with backoff. A source that cannot be reached at all before it first answers\n' +
    '(connection refused, unknown host) or not securely (a certificate that fails verification: self-signed,\n' +
    'expired, another host name; plain HTTP at https://) fails at once, exit code 1; once it has answered, such\n' +
    'failures are retried too. Trust a private CA or a self-signed source with NODE_EXTRA_CA_CERTS=ca.pem.',
  run: async (args, io) => {
    const from = sourceUrl(args);
    const clientId = requiredOption(args, 'client-id');
    const clientSecret = requiredOption(args, 'client-secret');
    const location = requiredOption(args, 'location');
    const intoLocation = args.strings['into-location'] ?? location;
    if (!LOCATION_ID.test(intoLocation)) throw new UsageError(`--into-location must be ${LOCATION_ID_RULE}.`);
    const since = args.strings['since'];
    // A day that does not exist (2025-02-30) is refused, not rolled over into March as Date.parse does.
    if (since !== undefined && dayOrDateTime(since) === undefined)
      throw new UsageError(`--since must be ${DAY_OR_DATE_TIME_HINT}, not ${since}.`);
    const pageSize = intOption(args, 'page-size', 1, 500);
    const progress = createProgress(io, 'records');
    const started = performance.now();
    try {
      const result = await withStore(args, (store) =>
        pullLocation(store, {
          from,
          clientId,
          clientSecret,
          location,
          intoLocation,
          pageSize,
          ...(since === undefined ? {} : { since }),
          onProgress: progress.update,
        }),
      );
      progress.done();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const starts = Object.entries(result.started)
        .map(([kind, start]) => `${kind} from ${start}`)
        .join(', ');
      io.stdout(
        `Pulled ${describeCounts(result.counts)} into ${intoLocation} from ${from} (${starts}) in ${seconds} s.\n`,
      );
      return 0;
    } catch (error) {
      progress.done();
      if (error instanceof LarderClientError) {
        // Client messages end with or without a full stop ("…login: ECONNREFUSED"): one sentence ends here.
        io.stderr(`larder pull: ${error.message.replace(/\.?$/, '.')} Nothing was stored.\n`);
        return 1;
      }
      throw error;
    }
  },
};
