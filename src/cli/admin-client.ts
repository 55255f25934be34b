import { badPortReason, FETCH_BAD_PORT } from '../shared/bad-ports.js';
import { ERROR_CATALOG } from '../shared/errors.js';
import { DEFAULT_HOST } from '../shared/limits.js';
import { maskedUrl, type OptionTable, optionLabel, type ParsedArgs, UsageError } from './command.js';

const ROUTE_NOT_FOUND = ERROR_CATALOG.ERR_ROUTE_NOT_FOUND.numericCode;

/** Options of every command that drives a running server through its admin API. */
export const ADMIN_OPTIONS: OptionTable = {
  url: {
    type: 'string',
    env: 'LARDER_URL',
    default: `http://${DEFAULT_HOST}:8080`,
    placeholder: 'URL',
    description: 'The running Larder server.',
  },
  'admin-token': {
    type: 'string',
    env: 'LARDER_ADMIN_TOKEN',
    placeholder: 'TOKEN',
    description:
      'The admin token the server was started with (a demo start prints it); the environment variable keeps it out of the process list. One starting with - goes as --admin-token=TOKEN.',
  },
};

/** A failure the server reported, with its ErrorMessage. */
export class AdminApiError extends Error {
  constructor(
    message: string,
    /** What the server answered, when it answered: a command can say a refused query parameter as its flag. */
    readonly answer?: { status: number; fieldName?: string | undefined; message?: string | undefined },
  ) {
    super(message);
  }
}

export interface AdminClient {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Calls `/_larder/…` on the server `--url` names, with `--admin-token`. */
export const adminClient = (args: ParsedArgs): AdminClient => {
  const url = args.strings['url']!.replace(/\/+$/, '');
  // Said as a usage mistake, not as a server that cannot be reached.
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new UsageError(
      `${optionLabel(args, 'url')} must be an http(s) URL such as http://127.0.0.1:8080, not ${maskedUrl(url)}.`,
    );
  const token = args.strings['admin-token'];
  if (token === undefined)
    throw new UsageError('--admin-token (or LARDER_ADMIN_TOKEN) is required: `larder serve` prints it.');
  return {
    call: async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      let response: Response;
      try {
        response = await fetch(`${url}/_larder${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        // fetch's own "fetch failed" says nothing; its cause says why (ECONNREFUSED, ENOTFOUND …). A cause of several
        // (every address of a name refused) may carry its code alone. A refused port gets words of its own.
        const { cause } = error as Error & { cause?: Error & { code?: string } };
        const why = cause instanceof Error ? cause.message || cause.code : undefined;
        const reason = why === FETCH_BAD_PORT ? badPortReason(url) : why;
        throw new AdminApiError(`cannot reach ${url}: ${reason ?? (error as Error).message}`);
      }
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as T;
      if (response.status === 404 && !text.includes('"requestId"'))
        throw new AdminApiError(`${url} does not look like Larder (404 for /_larder${path}).`);
      let answer: { message?: string; code?: number; fieldName?: string } = {};
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {}
      // "No such endpoint": the admin API is off. Any other 404 is about what was asked for (a rule id).
      if (response.status === 404 && (answer.code === undefined || answer.code === ROUTE_NOT_FOUND))
        throw new AdminApiError(
          `${url} has no admin API: start it with --admin-token (or LARDER_ADMIN_TOKEN).`,
        );
      if (response.status === 401)
        throw new AdminApiError(
          `${url} refused the admin token (wrong or missing): use the one \`larder serve\` printed, or the --admin-token it was started with.`,
        );
      throw new AdminApiError(`${response.status}: ${answer.message ?? text}`, {
        status: response.status,
        fieldName: answer.fieldName,
        message: answer.message,
      });
    },
  };
};
