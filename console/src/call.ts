/**
 * The admin API call every view makes, and the token it sends: kept apart from the page's address and storage
 * (api.ts), so it runs outside a browser too (test/console/answering.test.ts).
 */
import { noteAnswer } from './answering.js';

/** A failed call, with the ErrorMessage the server answered. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let token = '';
let refused = () => {};
/** Counts refusals: the other answers to calls sent before one say nothing of the token entered since. */
let refusals = 0;
/**
 * The token every call sends, and what to do when the server refuses it: any call's 401 (the server restarted
 * with another token), not only the header's clock read, brings the token form back at once.
 */
export const useToken = (value: string, onRefused: () => void) => {
  token = value;
  refused = onRefused;
};

/** One admin API call: JSON in, JSON out; an error answer becomes an ApiError with the server's message. */
export const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  let response: Response;
  const sentAfter = refusals;
  let text: string;
  try {
    response = await fetch(`/_larder${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    text = await response.text();
  } catch {
    noteAnswer(false);
    // The browser's own words ("Failed to fetch") do not say what happened.
    throw new ApiError(0, 'Larder did not answer: is it still running? Retrying as you go on.');
  }
  let json: unknown;
  let parsed = true;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = false;
  }
  // Larder's errors always carry a JSON body: an empty one with an error status came from something else.
  if (!parsed || (text === '' && !response.ok)) {
    noteAnswer(false);
    // Something in front of Larder answered (a proxy's error page, a login page): the parser's own words
    // ("Unexpected token '<'") would not say so.
    const type = response.headers.get('content-type')?.split(';')[0] ?? 'no content type';
    // HTTP/2 has no status text: then the status alone.
    const named = response.statusText === '' ? '' : `: ${response.statusText}`;
    const status = response.ok ? '' : `${response.status}${named}, `;
    const what = text === '' ? 'an empty body' : `${type}, not JSON`;
    throw new ApiError(
      response.status,
      `${status}not Larder's answer (${what}): is a proxy or a login page in front of it?`,
    );
  }
  noteAnswer(true);
  if (response.status === 401 && sentAfter === refusals) {
    refusals += 1;
    refused();
  }
  if (!response.ok) {
    const error = json as { message?: string; fieldName?: string } | undefined;
    const field = error?.fieldName === undefined ? '' : ` (${error.fieldName})`;
    throw new ApiError(
      response.status,
      `${response.status}: ${error?.message ?? response.statusText}${field}`,
    );
  }
  return json as T;
};
