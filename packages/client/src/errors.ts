import type { ErrorMessage } from './generated/types.js';

/** Every error the client throws, aborts excepted (those reject with the signal's reason, as fetch does). */
export class LarderClientError extends Error {
  override name = 'LarderClientError';
}

/**
 * The server answered with an error: its `ErrorMessage` fields, the HTTP status and the request id. `code` is
 * undefined when the body was not an ErrorMessage (a proxy's HTML page, the OAuth endpoint's RFC 6749 body).
 */
export class LarderApiError extends LarderClientError {
  override name = 'LarderApiError';
  readonly status: number;
  readonly code: number | undefined;
  readonly requestId: string | undefined;
  readonly fieldName: string | undefined;
  readonly developerMessage: string | undefined;
  readonly errors: ErrorMessage[];
  readonly canRetry: boolean;
  /** The error body as received, when it was an ErrorMessage. */
  readonly body: ErrorMessage | undefined;

  constructor(status: number, body: ErrorMessage | undefined, requestId: string | undefined, text: string) {
    super(body?.message ?? `HTTP ${status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`);
    this.status = status;
    this.body = body;
    this.code = body?.code;
    this.requestId = body?.requestId ?? requestId;
    this.fieldName = body?.fieldName;
    this.developerMessage = body?.developerMessage;
    this.errors = body?.errors ?? [];
    this.canRetry = body?.canRetry === undefined ? status === 429 || status >= 500 : body.canRetry === 'true';
  }
}

/** The request never got an answer: refused or reset connection, DNS failure, a body cut off. */
export class LarderTransportError extends LarderClientError {
  override name = 'LarderTransportError';
}

/**
 * No answer within `timeoutMs` (per attempt, or what was left of `maxElapsedMs`, or without retries of the call's
 * `timeoutMs`, when less), or a call or a login it needed that its `maxElapsedMs` (its `timeoutMs` without
 * retries) left no time to send. A kind of transport error.
 */
export class LarderTimeoutError extends LarderTransportError {
  override name = 'LarderTimeoutError';
}
