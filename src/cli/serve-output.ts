import { type DemoCredentials, demoCredentials, demoText } from '../sandbox/demo.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { ADMIN_PREFIX } from '../shared/limits.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { CONSOLE_PATH } from '../shared/own-paths.js';
import type { Store } from '../storage/store.js';
import type { CommandIo } from './command.js';
import type { ServeConfig } from './serve-config.js';

/**
 * What `larder serve` writes. Logs are pino lines on stderr (JSON, or pino-pretty with --log-format pretty).
 * The banner (URL, demo credentials, a development certificate) goes to stdout: as text for a person (stdout is
 * a terminal, or --log-format pretty), otherwise as ONE JSON line, so a log shipper reading both streams only
 * ever sees JSON.
 */
export interface ServeOutput {
  logger: Logger;
  /** A progress note at start (demo data being built): a text line, or a log line. */
  note(text: string): void;
  banner(store: Store, details: BannerDetails): Promise<void>;
}

export interface BannerDetails {
  url: string;
  publicUrl: string;
  workers: number;
  /** The admin token in force, when the admin API is on. */
  adminToken?: string;
  metricsUrl?: string;
  /** PEM of the development certificate made for --tls self-signed. */
  certificate?: string;
}

/** An operator should see at once that this server refuses or breaks requests on purpose. */
export const injectionNotices = (
  config: Partial<Pick<ServeConfig, 'rateLimit' | 'faults' | 'allowFaultHeader'>>,
): string[] => [
  ...(config.rateLimit !== undefined && config.rateLimit !== 'off'
    ? [
        `Rate limits: ${config.rateLimit.map((p) => `${p.limit} per ${p.windowMs / 1000} s`).join(', ')} (429 past them).`,
      ]
    : []),
  ...(config.faults !== undefined && config.faults.length > 0
    ? [`Fault injection: ${config.faults.length} rule(s) from --faults.`]
    : []),
  ...(config.allowFaultHeader === true ? ['Fault injection: the Larder-Fault header is honoured.'] : []),
];

const EMPTY_HINT = 'The database is empty: load data with `larder import` or `larder seed`.';

/**
 * Where the admin API and the console are, when they are on without a demo (an --admin-token start): the demo's
 * own part of the banner says it otherwise. The token is the operator's, so it is never printed.
 */
const adminLinks = (details: BannerDetails, demo: DemoCredentials | undefined) =>
  details.adminToken === undefined || demo !== undefined
    ? undefined
    : { url: `${details.publicUrl}${ADMIN_PREFIX}/`, console: `${details.publicUrl}${CONSOLE_PATH}` };

export const createServeOutput = (
  config: Pick<ServeConfig, 'logLevel' | 'logFormat'> &
    Partial<Pick<ServeConfig, 'rateLimit' | 'faults' | 'allowFaultHeader' | 'demo'>>,
  io: CommandIo,
  options: { logger?: Logger; clock?: Clock } = {},
): ServeOutput => {
  const clock = options.clock ?? systemClock;
  const pretty = config.logFormat === 'pretty';
  const text = pretty || io.stdoutIsTty === true;
  const logger =
    options.logger ??
    createLogger({ level: config.logLevel, format: config.logFormat, clock, colorize: pretty && io.isTty });
  const bannerLine = createLogger({ sink: { write: io.stdout }, clock });
  return {
    logger,
    note: (line) => (text ? io.stdout(line) : logger.info(line.trim())),
    banner: async (store, details) => {
      const storage = store.describe();
      const headline = `Larder is listening on ${details.url} (issuer ${details.publicUrl}, ${storage} storage, ${details.workers} worker(s)).`;
      // A --no-demo start is production-style: its log names no demo secret, even on a demo database.
      const demo = config.demo === false ? undefined : await demoCredentials(store, details.adminToken);
      const empty = demo === undefined && (await store.locations.list()).length === 0;
      const hint = empty ? EMPTY_HINT : undefined;
      const notices = injectionNotices(config);
      const admin = adminLinks(details, demo);
      if (!text) {
        bannerLine.info(headline, {
          url: details.url,
          publicUrl: details.publicUrl,
          storage,
          workers: details.workers,
          ...(details.metricsUrl === undefined ? {} : { metricsUrl: details.metricsUrl }),
          ...(demo === undefined ? {} : { demo }),
          ...(admin === undefined ? {} : { admin }),
          ...(hint === undefined ? {} : { hint }),
          ...(notices.length === 0 ? {} : { notices }),
          ...(details.certificate === undefined ? {} : { certificate: details.certificate }),
        });
        return;
      }
      io.stdout(bannerText(headline, details, demo, admin, empty, notices));
    },
  };
};

const bannerText = (
  headline: string,
  details: BannerDetails,
  demo: DemoCredentials | undefined,
  admin: ReturnType<typeof adminLinks>,
  empty: boolean,
  notices: readonly string[],
): string =>
  [
    `${headline}\n`,
    ...notices.map((notice) => `${notice}\n`),
    details.metricsUrl === undefined ? '' : `Metrics: ${details.metricsUrl}\n`,
    admin === undefined
      ? ''
      : `Admin API (with the --admin-token you gave): ${admin.url}\nConsole (sign in with that token): ${admin.console}\n`,
    details.certificate === undefined
      ? ''
      : `\nDevelopment TLS certificate (self-signed, made at this start; trust it in your client, e.g. curl --cacert):\n${details.certificate}\n`,
    empty ? `${EMPTY_HINT}\n` : '',
    demo === undefined ? '' : demoText(demo, details.publicUrl),
    'Press Ctrl-C to stop.\n',
  ].join('');
