import { DEFAULT_HOST } from '../shared/limits.js';
import { type OptionTable, type ParsedArgs, UsageError } from './command.js';

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
    description: 'The admin token the server was started with (a demo start prints it).',
  },
};

/** A failure the server reported, with its ErrorMessage. */
export class AdminApiError extends Error {}

export interface AdminClient {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Calls `/_larder/…` on the server `--url` names, with `--admin-token`. */
export const adminClient = (args: ParsedArgs): AdminClient => {
  const url = args.strings['url']!.replace(/\/+$/, '');
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
        throw new AdminApiError(`cannot reach ${url}: ${(error as Error).cause ?? (error as Error).message}`);
      }
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as T;
      if (response.status === 404 && !text.includes('"requestId"'))
        throw new AdminApiError(`${url} does not look like Larder (404 for /_larder${path}).`);
      if (response.status === 404)
        throw new AdminApiError(
          `${url} has no admin API: start it with --admin-token (or LARDER_ADMIN_TOKEN).`,
        );
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {}
      throw new AdminApiError(`${response.status}: ${message}`);
    },
  };
};
